/**
 * Byte round trips (docs/protocol.md#serialization): read every real result file and the seed, write it back with the
 * reference's serializer rules, and compare bytes. The seed lacks the final newline the tool
 * writes — the only difference allowed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { readResultFile, writeJsonFile } from '../../src/result/io.js';
import { toPyJson } from '../../src/result/pyjson.js';
import { fixtureFiles, MANGLED_FIXTURE, seedFile } from '../helpers/fixtures.js';

describe('byte round trip of real result files', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'servebench-roundtrip-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the seed: identical except the final newline the writer adds', async () => {
    const loaded = await readResultFile(seedFile());
    const out = path.join(dir, 'seed.json');
    await writeJsonFile(out, loaded.raw);
    const original = readFileSync(seedFile(), 'utf8');
    assert.equal(original.endsWith('\n'), false);
    assert.equal(readFileSync(out, 'utf8'), `${original}\n`);
  });

  it('all 127 fixtures of every era, except the one whose newlines were stripped', async () => {
    const files = fixtureFiles();
    assert.equal(files.length, 127);
    const identical: string[] = [];
    const different: string[] = [];
    for (const file of files) {
      const loaded = await readResultFile(file);
      const written = `${toPyJson(loaded.raw)}\n`;
      (written === readFileSync(file, 'utf8') ? identical : different).push(path.basename(file));
    }
    assert.deepEqual(different, [MANGLED_FIXTURE]);
    assert.equal(identical.length, 126);
  });

  it('the stripped fixture still holds the same data (only whitespace differs)', async () => {
    const file = fixtureFiles().find((f) => path.basename(f) === MANGLED_FIXTURE);
    assert.ok(file !== undefined);
    const loaded = await readResultFile(file);
    const written = `${toPyJson(loaded.raw)}\n`;
    const squash = (s: string): string => s.replace(/\s+/g, '');
    assert.equal(squash(written), squash(readFileSync(file, 'utf8')));
  });
});
