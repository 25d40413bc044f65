/**
 * `show`, `compare` and `report` on a result whose rows are only in its records file (`--records`
 * with `--inline-rows 0`): each uses the rows read from the file, so its output is the output of
 * the inline twin of the same run (both rebuilt from one journal, each in a directory of its own
 * so the file names match), and a records file that is missing, changed or cut short is refused
 * in one line naming it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';

let sim: SimHandle;
const dir = mkdtempSync(join(tmpdir(), 'servebench-records-readers-'));
/** The inline result, and its twin whose rows and failures are only in run.parquet. */
const inline = join(dir, 'inline');
const apart = join(dir, 'apart');
let rowCount = 0;
let failureCount = 0;

before(async () => {
  // Every fourth request fails (HTTP 500, not resent), so the failures travel through the file too.
  sim = await startSim({
    max_model_len: 4096,
    prefill_tok_s: 200000,
    decode_step_ms: 1,
    faults: 'mix=http_500:every=4',
  });
  const runDir = join(dir, 'run');
  for (const d of [runDir, inline, apart]) mkdirSync(d);
  const journal = join(runDir, 'run.journal.jsonl');
  const run = await runCli([
    'run',
    '--base-url',
    sim.url,
    '--requests',
    '24',
    '--concurrency',
    '4',
    '--ctx-tokens',
    '512',
    '--max-tokens',
    '6',
    '--quiet',
    '--output',
    join(runDir, 'run.json'),
    '--journal',
    journal,
  ]);
  assert.ok(run.code === 0 || run.code === 1, run.stderr);
  const a = await runCli(['rebuild', journal, '--output', join(inline, 'run.json')]);
  assert.ok(a.code === 0 || a.code === 1, a.stderr);
  const b = await runCli([
    'rebuild',
    journal,
    '--output',
    join(apart, 'run.json'),
    '--records',
    join(apart, 'run.parquet'),
    '--inline-rows',
    '0',
  ]);
  assert.ok(b.code === 0 || b.code === 1, b.stderr);
  const whole = JSON.parse(readFileSync(join(inline, 'run.json'), 'utf8')) as {
    request_timings: unknown[];
    failures: unknown[];
  };
  rowCount = whole.request_timings.length;
  failureCount = whole.failures.length;
  const kept = JSON.parse(readFileSync(join(apart, 'run.json'), 'utf8')) as {
    request_timings: unknown[];
    failures: unknown[];
    servebench: { records_file: { inline: boolean; rows: number } };
  };
  assert.equal(kept.servebench.records_file.inline, false);
  assert.equal(kept.request_timings.length, 0);
  assert.equal(kept.failures.length, 0);
  assert.equal(kept.servebench.records_file.rows, rowCount + failureCount);
});
after(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The command run in `cwd`, its exit code and output; a command that fails here fails the test. */
async function inDir(cwd: string, args: string[]): Promise<string> {
  const out = await runCli(args, { cwd });
  assert.equal(out.code, 0, `${args.join(' ')} in ${cwd}: ${out.stderr}`);
  return out.stdout;
}

test('the twins have rows and failures to show', () => {
  assert.ok(rowCount >= 12, `rows: ${rowCount}`);
  assert.ok(failureCount >= 3, `failures: ${failureCount}`);
});

/** Output without the line that names the records file (the inline twin has none). */
const unlabelled = (text: string): string => text.replace(/^records file .*\n/m, '');

test('show lists the failures read from the records file, as the inline result does', async () => {
  const shown = await inDir(apart, ['show', 'run.json']);
  assert.match(
    shown,
    new RegExp(
      `^records file +run\\.parquet, ${rowCount + failureCount} rows \\(the rows and failures are only there\\)$`,
      'm',
    ),
  );
  assert.equal(unlabelled(shown), await inDir(inline, ['show', 'run.json']));
  assert.match(shown, new RegExp(`×${failureCount}:`));
});

test('show and the terminal report of a result without failures read figures only: no records file is opened', async () => {
  const quiet = await startSim({ max_model_len: 4096, prefill_tok_s: 200000, decode_step_ms: 1 });
  const clean = join(dir, 'clean');
  mkdirSync(clean);
  try {
    const run = await runCli(
      [
        'run',
        '--base-url',
        quiet.url,
        '--requests',
        '4',
        '--ctx-tokens',
        '512',
        '--max-tokens',
        '4',
        '--quiet',
        '--output',
        'run.json',
        '--records',
        'run.parquet',
        '--inline-rows',
        '0',
      ],
      { cwd: clean },
    );
    assert.equal(run.code, 0, run.stderr);
  } finally {
    await quiet.close();
  }
  rmSync(join(clean, 'run.parquet'));
  assert.match(await inDir(clean, ['show', 'run.json']), /^outcome +4 completed, 0 failed of 4$/m);
  await inDir(clean, ['report', 'run.json']);
  const html = await runCli(['report', 'run.json', '--html', 'out.html'], { cwd: clean });
  assert.equal(html.code, 2, 'the HTML report needs the rows');
});

test('compare --bootstrap resamples the rows read from the records file: the inline twin’s figures and intervals', async () => {
  const args = ['compare', 'run.json', 'run.json', '--bootstrap', '300', '--seed', '5', '--json'];
  const fromFile = await inDir(apart, args);
  assert.equal(fromFile, await inDir(inline, args));
  const report = JSON.parse(fromFile) as {
    comparisons: { row_counts: number[]; metrics: { id: string; a: number | null; ci?: unknown }[] }[];
  };
  assert.deepEqual(report.comparisons[0]!.row_counts, [rowCount, rowCount]);
  assert.equal(
    await inDir(apart, ['compare', 'run.json', 'run.json']),
    await inDir(inline, ['compare', 'run.json', 'run.json']),
  );
});

test('report --html draws every row read from the records file, as for the inline twin', async () => {
  const page = (cwd: string): string =>
    readFileSync(join(cwd, 'out.html'), 'utf8').replace(/generated \S+ by/, 'generated (time) by');
  await inDir(apart, ['report', 'run.json', '--html', 'out.html']);
  await inDir(inline, ['report', 'run.json', '--html', 'out.html']);
  assert.equal(page(apart), page(inline));
  const data = /<script type="application\/json" id="sb-data">([\s\S]*?)<\/script>/.exec(page(apart));
  const charts = JSON.parse(data![1]!) as {
    runs: { timeline: { total: number; bars: unknown[]; failures: unknown[] } | null; cdf: { e2e: unknown[] } }[];
  };
  const timeline = charts.runs[0]!.timeline!;
  assert.equal(timeline.total, rowCount);
  assert.equal(timeline.bars.length, rowCount);
  assert.equal(timeline.failures.length, failureCount);
  assert.equal(charts.runs[0]!.cdf.e2e.length, rowCount);
});

test('report --csv and the terminal report use the records file too', async () => {
  const csv = await inDir(apart, ['report', 'run.json', '--csv', 'out.csv']);
  assert.equal(csv, `${rowCount} request rows written to out.csv\n`);
  await inDir(inline, ['report', 'run.json', '--csv', 'out.csv']);
  assert.equal(readFileSync(join(apart, 'out.csv'), 'utf8'), readFileSync(join(inline, 'out.csv'), 'utf8'));
  assert.equal(unlabelled(await inDir(apart, ['report', 'run.json'])), await inDir(inline, ['report', 'run.json']));
});

const READERS: string[][] = [
  ['show', 'run.json'],
  ['compare', 'run.json', 'run.json'],
  ['report', 'run.json', '--html', 'out.html'],
  ['report', 'run.json'],
  ['validate', 'run.json'],
];

for (const [name, spoil, problem] of [
  ['missing', (file: string) => rmSync(file), /run\.parquet: (no such file|not found|does not exist)/i],
  [
    'changed',
    (file: string) => {
      const bytes = readFileSync(file);
      bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
      writeFileSync(file, bytes);
    },
    /run\.parquet: sha256 [0-9a-f]{64} is not the [0-9a-f]{64} of servebench\.records_file/,
  ],
  [
    'cut short',
    (file: string) => truncateSync(file, 100),
    /run\.parquet is 100 bytes, not the \d+ of servebench\.records_file/,
  ],
] as const) {
  test(`a records file that is ${name}: show, compare, report and validate refuse in one line naming it`, async () => {
    const spoiled = join(dir, `spoiled-${name.replace(' ', '-')}`);
    cpSync(apart, spoiled, { recursive: true });
    spoil(join(spoiled, 'run.parquet'));
    for (const args of READERS) {
      const out = await runCli(args, { cwd: spoiled });
      assert.equal(out.code, 2, `${args.join(' ')}: ${out.stdout}${out.stderr}`);
      const lines = out.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, `${args.join(' ')}: one line, not:\n${out.stderr}`);
      assert.match(lines[0]!, problem, args.join(' '));
      assert.ok(lines[0]!.includes(join(spoiled, 'run.parquet')), lines[0]);
      assert.doesNotMatch(out.stderr, /\n\s+at /);
    }
  });
}
