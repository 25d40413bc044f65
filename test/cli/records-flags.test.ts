/**
 * `--records` and `--inline-rows` as a user meets them: bad values refused in one line before
 * anything is sent; past --inline-rows the rows leave the result for the file and `validate`
 * recomputes from it (and refuses a changed file in one line); without --records a result is
 * byte for byte what it was.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';

let sim: SimHandle;
before(async () => {
  sim = await startSim({ max_model_len: 4096, prefill_tok_s: 200000, decode_step_ms: 1 });
});
after(async () => sim.close());

const dir = mkdtempSync(join(tmpdir(), 'servebench-records-cli-'));

function oneLine(stderr: string, pattern: RegExp): void {
  assert.equal(stderr.trim().split('\n').length, 1, stderr);
  assert.match(stderr, pattern);
}

test('bad --records and --inline-rows values: one line naming the flag, exit 2, nothing written', async () => {
  const cases: [string[], RegExp][] = [
    [['run', '--inline-rows', '3'], /--inline-rows needs --records/],
    [['run', '--records', join(dir, 'x.json')], /--records: .* does not end in \.parquet/],
    [['run', '--records', '-'], /--records: a Parquet file cannot go to stdout/],
    [['run', '--records', join(dir, 'x.parquet'), '--inline-rows', '-1'], /--inline-rows/],
    [['run', '--records', join(dir, 'x.parquet'), '--inline-rows', 'many'], /--inline-rows/],
    [['run', '--records', join(dir, 'x.parquet'), '--dry-run'], /--records needs a result/],
    [['run', '--records', join(dir, 'x.parquet'), '--shards', '2'], /--records does not apply to a sharded run/],
    [['run', '--records', join(dir, 'missing', 'x.parquet')], /--records .*does not exist/],
    [['sweep', '--concurrency', '1,2', '--records', join(dir, 'x.parquet')], /--records/],
    [['plan', '--records', join(dir, 'x.parquet')], /--records/],
    [['rebuild', join(dir, 'none.journal.jsonl'), '--inline-rows', '2'], /--inline-rows needs --records/],
    [['merge', join(dir, 'a.jsonl'), '--output', join(dir, 'm.json'), '--records', 'm.csv'], /\.parquet/],
  ];
  for (const [args, pattern] of cases) {
    const run = await runCli(args, { cwd: dir });
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    oneLine(run.stderr, pattern);
    assert.doesNotMatch(run.stderr, /\n\s+at /);
  }
  assert.equal(existsSync(join(dir, 'x.parquet')), false);
  assert.equal(existsSync(join(dir, 'results')), false, 'no run started');
});

async function run5(name: string, extra: string[]): Promise<{ result: string; records: string }> {
  const result = join(dir, `${name}.json`);
  const records = join(dir, `${name}.parquet`);
  const run = await runCli(
    [
      'run',
      '--base-url',
      sim.url,
      '--requests',
      '5',
      '--concurrency',
      '2',
      '--ctx-tokens',
      '512',
      '--max-tokens',
      '4',
      '--quiet',
      '--output',
      result,
      ...extra.map((arg) => arg.replace('RECORDS', records)),
    ],
    { cwd: dir },
  );
  assert.equal(run.code, 0, run.stderr);
  return { result, records };
}

test('more requests than --inline-rows: figures inline, rows in the file, validate recomputes from it', async () => {
  const { result, records } = await run5('cut', ['--records', 'RECORDS', '--inline-rows', '3']);
  const doc = JSON.parse(readFileSync(result, 'utf8')) as Record<string, unknown> & {
    servebench: { records_file: Record<string, unknown> };
    metrics: Record<string, unknown>;
  };
  assert.deepEqual(doc['request_timings'], []);
  assert.deepEqual(doc['failures'], []);
  assert.equal(doc['completed'], 5);
  assert.equal(typeof doc.metrics['ttft_p50_ms'], 'number');
  const label = doc.servebench.records_file;
  assert.equal(label['path'], 'cut.parquet');
  assert.equal(label['rows'], 5);
  assert.equal(label['inline'], false);
  assert.equal(label['bytes'], readFileSync(records).length);
  const valid = await runCli(['validate', result], { cwd: dir });
  assert.equal(valid.code, 0, valid.stdout + valid.stderr);
  assert.match(valid.stdout, /consistent \(current, .*, 5 rows\)/);

  // A changed figure is found from the file's rows: the recomputation really reads them.
  const edited = join(dir, 'cut-edited.json');
  writeFileSync(edited, readFileSync(result, 'utf8').replace(/"ttft_p50_ms": [0-9.e-]+/, '"ttft_p50_ms": 12345.5'));
  const disagrees = await runCli(['validate', edited], { cwd: dir });
  assert.equal(disagrees.code, 1, disagrees.stdout);
  assert.match(disagrees.stdout, /metrics\.ttft_p50_ms: stored 12345\.5/);

  // A records file changed after the result was written is refused in one line.
  const bytes = readFileSync(records);
  const middle = Math.floor(bytes.length / 2);
  bytes[middle] = (bytes[middle] ?? 0) ^ 0xff;
  writeFileSync(records, bytes);
  const tampered = await runCli(['validate', result], { cwd: dir });
  assert.equal(tampered.code, 2);
  oneLine(
    tampered.stderr,
    /cut\.json: records file .*cut\.parquet: sha256 [0-9a-f]{64} is not the [0-9a-f]{64} of servebench\.records_file/,
  );
  writeFileSync(records, bytes.subarray(0, 100));
  const cut = await runCli(['validate', result], { cwd: dir });
  oneLine(cut.stderr, /cut\.parquet is 100 bytes, not the \d+ of servebench\.records_file/);
});

test('at or below --inline-rows the rows stay inline, labelled inline: true', async () => {
  const { result } = await run5('atn', ['--records', 'RECORDS', '--inline-rows', '5']);
  const doc = JSON.parse(readFileSync(result, 'utf8')) as {
    request_timings: unknown[];
    servebench: { records_file: { inline: boolean; rows: number } };
  };
  assert.equal(doc.request_timings.length, 5);
  assert.deepEqual([doc.servebench.records_file.inline, doc.servebench.records_file.rows], [true, 5]);
  const valid = await runCli(['validate', result], { cwd: dir });
  assert.equal(valid.code, 0, valid.stdout);
});

test('without --records a result is unchanged; with it only the label and (past N) the lists differ', async () => {
  const { result } = await run5('plain', []);
  const journal = join(dir, 'plain.journal.jsonl');
  const again = join(dir, 'plain-rebuilt.json');
  const rebuild = await runCli(['rebuild', journal, '--output', again], { cwd: dir });
  assert.equal(rebuild.code, 0, rebuild.stderr);
  const original = readFileSync(result, 'utf8');
  assert.equal(readFileSync(again, 'utf8'), original, 'byte for byte');
  assert.doesNotMatch(original, /records_file/);

  const inline = join(dir, 'plain-inline.json');
  await runCli(['rebuild', journal, '--output', inline, '--records', join(dir, 'plain-inline.parquet')], { cwd: dir });
  const withLabel = JSON.parse(readFileSync(inline, 'utf8')) as { servebench: Record<string, unknown> };
  delete withLabel.servebench['records_file'];
  assert.deepEqual(withLabel, JSON.parse(original));

  const outside = join(dir, 'plain-outside.json');
  const rebuilt = await runCli(
    ['rebuild', journal, '--output', outside, '--records', join(dir, 'plain-outside.parquet'), '--inline-rows', '0'],
    { cwd: dir },
  );
  assert.equal(rebuilt.code, 0, rebuilt.stderr);
  const valid = await runCli(['validate', outside], { cwd: dir });
  assert.equal(valid.code, 0, valid.stdout + valid.stderr);
  assert.match(valid.stdout, /5 rows/);
});
