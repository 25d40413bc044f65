import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { showCommand } from '../../src/cli/commands/show.js';
import { validateCommand } from '../../src/cli/commands/validate.js';
import type { CliIO } from '../../src/cli/io.js';
import { toPyJson } from '../../src/result/pyjson.js';
import { InputFileError, UsageError } from '../../src/util/errors.js';
import { fixtureFiles, seedFile } from '../helpers/fixtures.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'servebench-validate-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function fakeIO(): CliIO & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    env: {},
    cwd: dir,
    isTTY: false,
    onSignal: () => () => {},
    now: () => new Date(),
    stdout: (t: string) => {
      io.out += t;
    },
    stderr: (t: string) => {
      io.err += t;
    },
  };
  return io;
}

/** A copy of the seed with one change applied, written the reference's way. */
function alteredSeed(name: string, change: (doc: Record<string, any>) => void): string {
  const doc = JSON.parse(readFileSync(seedFile(), 'utf8')) as Record<string, any>;
  change(doc);
  const file = path.join(dir, name);
  writeFileSync(file, `${toPyJson(doc)}\n`);
  return file;
}

describe('servebench validate: exit codes', () => {
  it('0 for consistent files (seed and fixtures of three eras)', async () => {
    const io = fakeIO();
    const some = fixtureFiles().filter((_, i) => i % 20 === 0);
    assert.equal(await validateCommand([seedFile(), ...some], io), 0);
    assert.equal(io.err, '');
    assert.match(
      io.out,
      /seed-result-capacity-v4-reasoning\.json: consistent \(current, capacity-v4-reasoning; \d+ figures, 32 rows\)/,
    );
  });

  it('1 when a summary figure was altered, naming that field with both values', async () => {
    const file = alteredSeed('p50.json', (d) => {
      d['metrics']['ttft_p50_ms'] = 6000.5;
    });
    const io = fakeIO();
    assert.equal(await validateCommand([file], io), 1);
    assert.match(io.out, /1 figure disagrees/);
    assert.match(io.out, /metrics\.ttft_p50_ms: stored 6000\.5, recomputed 6264\.289900005679/);
    assert.equal(io.out.match(/stored/g)?.length, 1, 'only the altered field is reported');
  });

  it('1 when a row field was altered (derived fields no longer follow)', async () => {
    const file = alteredSeed('row.json', (d) => {
      d['request_timings'][5]['generation_ms'] += 0.001;
    });
    const io = fakeIO();
    assert.equal(await validateCommand([file], io), 1);
    assert.match(io.out, /request_timings\[5\]\.generation_ms: stored/);
  });

  it('1 for a wrong protocol label and for counts that do not add up', async () => {
    const label = alteredSeed('label.json', (d) => {
      d['measurement_protocol'] = 'capacity-v3';
    });
    const counts = alteredSeed('counts.json', (d) => {
      d['failed'] = 1;
    });
    const io = fakeIO();
    assert.equal(await validateCommand([label, counts], io), 1);
    assert.match(io.out, /measurement_protocol: stored capacity-v3, recomputed capacity-v4-reasoning/);
    assert.match(io.out, /failed: stored 1, recomputed 0/);
  });

  it('throughput: a 1-ulp edit passes only under the stated 4-ulp tolerance (with a note); more fails', async () => {
    // 41.644436059165464 is the next double above the stored 41.64443605916546
    const file = alteredSeed('ulp.json', (d) => {
      d['metrics']['throughput_tok_s'] = 41.644436059165464;
    });
    const io = fakeIO();
    assert.equal(await validateCommand([file], io), 0, 'within 4 ulp of output / (wall_clock_ms / 1000)');
    assert.match(
      io.out,
      /note: metrics\.throughput_tok_s agrees with output \/ \(wall_clock_ms \/ 1000\) within 1 ulp/,
    );
    const far = alteredSeed('far.json', (d) => {
      d['metrics']['throughput_tok_s'] = 41.65;
    });
    assert.equal(await validateCommand([far], fakeIO()), 1);
  });

  it('2 (InputFileError, one line) for a single unreadable file: not JSON, wrong schema, too large', async () => {
    writeFileSync(path.join(dir, 'notjson.json'), 'nope');
    writeFileSync(path.join(dir, 'schema.json'), '{"schema": "x"}');
    writeFileSync(path.join(dir, 'big.json'), '');
    truncateSync(path.join(dir, 'big.json'), 64 * 1024 * 1024 + 10);
    for (const [name, pattern] of [
      ['notjson.json', /not valid JSON/],
      ['schema.json', /schema is "x"/],
      ['big.json', /over the 64 MiB limit/],
    ] as const) {
      await assert.rejects(validateCommand([name], fakeIO()), (e: unknown) => {
        assert.ok(e instanceof InputFileError);
        assert.equal(e.file, name, 'names the file as typed');
        assert.match(e.problem, pattern);
        assert.ok(!e.message.includes('\n'));
        return true;
      });
    }
  });

  it('2 at the end with several files: each unreadable one reported, the rest still validated', async () => {
    const io = fakeIO();
    assert.equal(await validateCommand(['notjson.json', seedFile(), 'missing.json'], io), 2);
    assert.equal(
      io.err,
      'servebench validate: notjson.json: not valid JSON: Unexpected token \'o\', "nope" is not valid JSON\n' +
        'servebench validate: missing.json: no such file\n',
    );
    assert.match(io.out, /consistent/);
  });

  it('--json prints one machine-readable report', async () => {
    const file = alteredSeed('json.json', (d) => {
      d['metrics']['e2e_p95_ms'] = 1;
    });
    const io = fakeIO();
    assert.equal(await validateCommand(['--json', file, 'missing.json'], io), 2);
    const report = JSON.parse(io.out) as {
      files: { file: string; readable: boolean; consistent?: boolean; disagreements?: { path: string }[] }[];
    };
    assert.equal(report.files.length, 2);
    assert.equal(report.files[0]?.consistent, false);
    assert.deepEqual(
      report.files[0]?.disagreements?.map((d) => d.path),
      ['metrics.e2e_p95_ms'],
    );
    assert.equal(report.files[1]?.readable, false);
  });

  it('usage errors: unknown flag, no file; --help exits 0', async () => {
    await assert.rejects(
      validateCommand(['--frob', 'x'], fakeIO()),
      (e: unknown) =>
        e instanceof UsageError && /unknown option '--frob'/i.test(e.message) && !e.message.includes('\n'),
    );
    await assert.rejects(validateCommand([], fakeIO()), UsageError);
    // --help is main's to answer; the command called directly refuses it.
    await assert.rejects(validateCommand(['--help'], fakeIO()), UsageError);
    const help = await runCli(['validate', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /usage: servebench validate/);
  });
});

describe('servebench show', () => {
  it('summarizes the seed with aligned columns', async () => {
    const io = fakeIO();
    assert.equal(await showCommand([seedFile()], io), 0);
    for (const pattern of [
      /^model {9}glm53-flash/m,
      /^protocol {6}capacity-v4-reasoning \(current emitter\)/m,
      /^workload {6}n=32 c=16 ctx=4096 max_tokens=256/m,
      /^outcome {7}32 completed, 0 failed of 32/m,
      /^TTFO +5\.65 s +14\.83 s$/m,
      /^decode +4\.44 tok\/s +49\.1 tok\/s$/m,
      /^throughput +41\.6 tok\/s \(1303 output tokens\)/m,
    ]) {
      assert.match(io.out, pattern);
    }
    assert.doesNotMatch(io.out, /null|NaN|undefined/);
  });

  it('handles every era and groups failures by type with a sample message', async () => {
    for (const file of fixtureFiles()) {
      const io = fakeIO();
      assert.equal(await showCommand([file], io), 0);
      assert.doesNotMatch(io.out, /null|NaN|undefined/, file);
      assert.match(io.out, /^TTFT /m, file);
    }
    const withFailure = fixtureFiles().find((f) => f.endsWith('capacity-dspark5-low-4k-c1-r3.json'));
    assert.ok(withFailure !== undefined);
    const io = fakeIO();
    await showCommand([withFailure], io);
    assert.match(io.out, /^ {2}ValueError ×1: stream completed without visible content$/m);
  });

  it('usage: exactly one file, no unknown flags; unreadable → InputFileError', async () => {
    await assert.rejects(showCommand([], fakeIO()), UsageError);
    await assert.rejects(showCommand([seedFile(), seedFile()], fakeIO()), UsageError);
    await assert.rejects(showCommand(['--bogus', seedFile()], fakeIO()), /unknown option '--bogus'/i);
    await assert.rejects(showCommand(['--json', seedFile()], fakeIO()), /--json and --all apply to other tools/);
    await assert.rejects(
      showCommand(['missing.json'], fakeIO()),
      (e: unknown) => e instanceof InputFileError && e.file === 'missing.json',
    );
  });
});
