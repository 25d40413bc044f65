/**
 * A saved plan is read as written or gzipped (as `servebench k8s` stores a plan over a
 * ConfigMap's 1 MiB): the same plan and text either way; a damaged gzip is one line naming the file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readPlanFile } from '../../src/cli/plan-file.js';
import { serializePlan } from '../../src/plan/run-plan.js';
import { InputFileError } from '../../src/util/errors.js';
import { planOf } from '../helpers/plans.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-plan-file-'));

test('a gzipped plan reads as the plan it holds; a damaged one is refused naming the file', async () => {
  const plan = await planOf(['--requests', '50', '--rate', '5', '--tokenizer', 'chars:3.0'], dir);
  const text = serializePlan(plan);
  const plain = join(dir, 'plan.json');
  const zipped = join(dir, 'plan.json.gz');
  writeFileSync(plain, text);
  writeFileSync(zipped, gzipSync(text));
  assert.deepEqual(readPlanFile(zipped), readPlanFile(plain));
  assert.equal(readPlanFile(zipped).text, text);
  const broken = join(dir, 'broken.json.gz');
  writeFileSync(broken, gzipSync(text).subarray(0, 40));
  assert.throws(
    () => readPlanFile(broken),
    (error: unknown) =>
      error instanceof InputFileError &&
      /is gzip but does not unzip/.test(error.message) &&
      error.message.includes(broken),
  );
});
