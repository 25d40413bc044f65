import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import {
  MAX_RESULT_BYTES,
  parseResultText,
  readResultFile,
  writeFileAtomic,
  writeJsonFile,
} from '../../src/result/io.js';
import { InputFileError, UsageError } from '../../src/util/errors.js';
import { seedFile } from '../helpers/fixtures.js';

const dir = mkdtempSync(path.join(tmpdir(), 'servebench-io-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string): string => path.join(dir, name);

/** Assert an InputFileError naming `file`, on one line, whose problem matches `pattern`. */
async function rejectsWith(promise: Promise<unknown>, file: string, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof InputFileError, String(err));
    assert.equal(err.file, file);
    assert.match(err.problem, pattern);
    assert.ok(!err.message.includes('\n'), 'one line');
    return true;
  });
}

describe('reading result files', () => {
  it('reads the seed', async () => {
    const loaded = await readResultFile(seedFile());
    assert.equal(loaded.result.era, 'current');
  });

  it('not JSON: names the file and the line and column', async () => {
    writeFileSync(at('bad.json'), '{\n  "schema": "anvil-serving.benchmark/v1",\n  oops\n}\n');
    await rejectsWith(readResultFile(at('bad.json')), at('bad.json'), /^not valid JSON: .*line 3 column 3/);
    writeFileSync(at('empty.json'), '');
    await rejectsWith(
      readResultFile(at('empty.json')),
      at('empty.json'),
      /^not valid JSON: Unexpected end of JSON input/,
    );
  });

  it('wrong or missing schema, unknown protocol, non-object', async () => {
    assert.throws(
      () => parseResultText('f', '{"schema": "other/v2"}'),
      /f: schema is "other\/v2", expected "anvil-serving.benchmark\/v1"/,
    );
    assert.throws(() => parseResultText('f', '{}'), /schema is missing/);
    assert.throws(() => parseResultText('f', '[1]'), /not a JSON object/);
    assert.throws(
      () => parseResultText('f', '{"schema": "anvil-serving.benchmark/v1", "measurement_protocol": "capacity-v9"}'),
      /unsupported measurement_protocol "capacity-v9"/,
    );
  });

  it('schema violations list paths, several at once', async () => {
    const seed = JSON.parse(readFileSync(seedFile(), 'utf8')) as Record<string, unknown>;
    const metrics = seed['metrics'] as Record<string, unknown>;
    delete metrics['ttft_samples'];
    metrics['e2e_p50_ms'] = 'fast';
    assert.throws(
      () => parseResultText('f', JSON.stringify(seed)),
      (err: unknown) => {
        assert.ok(err instanceof InputFileError);
        assert.match(err.problem, /metrics\.e2e_p50_ms: .*metrics\.ttft_samples: /);
        return true;
      },
    );
  });

  it('too large: refused before reading, by size', async () => {
    writeFileSync(at('huge.json'), '');
    truncateSync(at('huge.json'), MAX_RESULT_BYTES + 1); // sparse: costs no disk
    await rejectsWith(readResultFile(at('huge.json')), at('huge.json'), /is 67108865 bytes, over the 64 MiB limit/);
    writeFileSync(at('small.json'), '{"schema": 1}');
    await rejectsWith(readResultFile(at('small.json'), 4), at('small.json'), /over the 4 bytes limit/);
  });

  it('missing file, directory, invalid UTF-8, FIFO', async () => {
    await rejectsWith(readResultFile(at('nope.json')), at('nope.json'), /^no such file$/);
    mkdirSync(at('adir'));
    await rejectsWith(readResultFile(at('adir')), at('adir'), /is a directory/);
    writeFileSync(at('latin1.json'), Buffer.from([0x7b, 0xe9, 0x7d]));
    await rejectsWith(readResultFile(at('latin1.json')), at('latin1.json'), /not valid UTF-8/);
    try {
      execFileSync('mkfifo', [at('fifo')]);
    } catch {
      return; // no mkfifo here: the O_NONBLOCK path is still covered by the other cases
    }
    await rejectsWith(readResultFile(at('fifo')), at('fifo'), /not a regular file/);
  });
});

describe('atomic writes', () => {
  it('writes the text plus a newline and leaves no temp file', async () => {
    const target = at('out/result.json');
    mkdirSync(at('out'));
    await writeJsonFile(target, { b_ms: 1, a: 'é' });
    assert.equal(readFileSync(target, 'utf8'), '{\n  "a": "\\u00e9",\n  "b_ms": 1.0\n}\n');
    await writeJsonFile(target, { a: 2 }); // replaces an existing regular file
    assert.equal(readFileSync(target, 'utf8'), '{\n  "a": 2\n}\n');
    assert.deepEqual(readdirSync(at('out')), ['result.json']);
  });

  it('refuses to write through a symlink or over a non-regular file', async () => {
    writeFileSync(at('victim.json'), 'keep');
    symlinkSync(at('victim.json'), at('link.json'));
    await assert.rejects(
      writeFileAtomic(at('link.json'), 'x'),
      (e: unknown) => e instanceof UsageError && /symbolic link/.test(e.message),
    );
    assert.equal(readFileSync(at('victim.json'), 'utf8'), 'keep');
    mkdirSync(at('dir-target'));
    await assert.rejects(
      writeFileAtomic(at('dir-target'), 'x'),
      (e: unknown) => e instanceof UsageError && /not a regular file/.test(e.message),
    );
    await assert.rejects(
      writeFileAtomic(at('no/such/dir/x.json'), 'x'),
      (e: unknown) => e instanceof UsageError && /parent directory/.test(e.message),
    );
  });

  it('a non-finite number is refused and leaves the target and no temp file', async () => {
    mkdirSync(at('nan'));
    writeFileSync(at('nan/r.json'), 'previous');
    await assert.rejects(writeJsonFile(at('nan/r.json'), { wall_clock_ms: Number.NaN }), RangeError);
    assert.equal(readFileSync(at('nan/r.json'), 'utf8'), 'previous');
    assert.deepEqual(readdirSync(at('nan')), ['r.json']);
  });
});
