import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildWorkload, fixedRatioSizer, type WorkloadInput } from '../../src/workload/workload.js';
import { referencePrompt, sharedPrefix, ENVELOPE_TOO_SMALL } from '../../src/workload/prompt.js';
import { summarizeCalibration, contextTolerance } from '../../src/metrics/calibration.js';

const base: WorkloadInput = {
  requests: 4,
  ctxTokens: 4096,
  seed: 0,
  cap: null,
  buckets: null,
  prefix: 'shared',
  sharedPrefixTokens: 8000,
  cacheBust: false,
  maxTokens: 64,
  dataset: null,
  sizer: fixedRatioSizer(3.0),
};

test('chars:3.0 sends the reference prompt bytes', async () => {
  const workload = await buildWorkload(base);
  assert.equal(workload.promptMethod, 'chars:3.0');
  for (let i = 0; i < 4; i++)
    assert.equal((await workload.prepare(i))[0]!.content, referencePrompt(sharedPrefix(8000), i, 4096));
  assert.equal(workload.cachePolicy, 'prefix=shared:8000;cache-bust=off');
});

test('prompt_set_id depends on the prompt bytes only, not on the cache-bust salt', async () => {
  const a = await buildWorkload(base);
  const b = await buildWorkload(base);
  const salted1 = await buildWorkload({ ...base, cacheBust: true });
  const salted2 = await buildWorkload({ ...base, cacheBust: true });
  assert.equal(a.promptSetId(), b.promptSetId());
  assert.equal(salted1.promptSetId(), salted2.promptSetId());
  assert.notEqual(a.promptSetId(), salted1.promptSetId());
  assert.notEqual(
    (await salted1.prepare(0))[0]!.content,
    (await salted2.prepare(0))[0]!.content,
    'two cache-busted runs send different bytes',
  );
  assert.equal(salted1.cachePolicy, 'prefix=shared:8000;cache-bust=on');
  const unique = await buildWorkload({ ...base, prefix: 'unique' });
  assert.notEqual(unique.promptSetId(), a.promptSetId());
});

test('a plan too small for the prompt envelope fails that request with the reference message', async () => {
  const workload = await buildWorkload({ ...base, ctxTokens: 15 });
  await assert.rejects(() => workload.prepare(0), new RegExp(ENVELOPE_TOO_SMALL));
});

test('calibration summary by hand', () => {
  // planned 1000 → tolerance max(10, 8) = 10; planned 200 → max(2, 8) = 8.
  assert.equal(contextTolerance(1000), 10);
  assert.equal(contextTolerance(200), 8);
  const rows = [
    { request_index: 0, planned_context_tokens: 1000, prompt_tokens: 1005 }, // +0.5 %, inside
    { request_index: 1, planned_context_tokens: 1000, prompt_tokens: 985 }, // −1.5 %, outside
    { request_index: 2, planned_context_tokens: 200, prompt_tokens: 208 }, // +4 %, inside (8 tokens)
    { request_index: 3, planned_context_tokens: 200, prompt_tokens: null }, // not counted
  ];
  const summary = summarizeCalibration(rows, 'server:/tokenize', true);
  assert.equal(summary.requests_checked, 3);
  assert.deepEqual(summary.outside_tolerance_indexes, [1]);
  assert.equal(summary.mean_error_fraction, (0.005 - 0.015 + 0.04) / 3);
  assert.equal(summary.mean_abs_error_fraction, (0.005 + 0.015 + 0.04) / 3);
  assert.equal(summary.worst_error_fraction, 0.04);
});
