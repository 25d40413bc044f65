/**
 * The RunPlan survives JSON without loss (another process or machine executes exactly what was
 * planned), and a damaged plan is refused with the field named. Plans are made by the plan stage
 * itself (planRun) with a fixed-ratio counter, so no server is involved.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePlan, serializePlan, type RunPlan } from '../../src/plan/run-plan.js';
import { InputFileError } from '../../src/util/errors.js';
import { planOf as planOfIn } from '../helpers/plans.js';

const cwd = mkdtempSync(join(tmpdir(), 'servebench-plan-'));
writeFileSync(
  join(cwd, 'rows.jsonl'),
  [
    '{"prompt":"one"}',
    '{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"two"}],"max_tokens":9}',
    '{"prompt":"three"}',
  ].join('\n'),
);
writeFileSync(
  join(cwd, 'trace.jsonl'),
  [
    '{"timestamp":0,"input_length":300,"output_length":5}',
    '{"timestamp":250.5,"input_length":900,"output_length":7}',
  ].join('\n'),
);

const planOf = (args: string[]): Promise<RunPlan> => planOfIn(args, cwd);

const CASES: [string, string[]][] = [
  [
    'closed loop, sampled contexts',
    ['--requests', '40', '--concurrency', '4', '--seed', '7', '--tokenizer', 'chars:3.0'],
  ],
  [
    'open loop, gamma arrivals, cache-bust, unique prefixes',
    [
      '--rate',
      '12.5',
      '--arrival',
      'gamma',
      '--burstiness',
      '0.5',
      '--requests',
      '30',
      '--cache-bust',
      '--prefix',
      'unique',
      '--tokenizer',
      'chars:2.5',
      '--warmup',
      '3',
    ],
  ],
  [
    'closed loop bounded by time (prompts sized during the run)',
    ['--duration', '5', '--concurrency', '2', '--ctx-tokens', '512', '--tokenizer', 'chars:3.0', '--warmup', '2s'],
  ],
  [
    'dataset rows',
    [
      '--dataset',
      'rows.jsonl',
      '--requests',
      '3',
      '--tokenizer',
      'chars:3.0',
      '--no-thinking',
      '--ignore-eos',
      '--min-tokens',
      '2',
    ],
  ],
  [
    'trace replay',
    [
      '--trace',
      'trace.jsonl',
      '--max-concurrency',
      '2',
      '--tokenizer',
      'chars:3.0',
      '--retries',
      '2',
      '--request-timeout',
      '30',
      '--slo',
      'ttft_p95<=2000',
    ],
  ],
];

for (const [name, args] of CASES) {
  test(`a plan round-trips through JSON unchanged: ${name}`, async () => {
    const plan = await planOf(args);
    const text = serializePlan(plan);
    const back = parsePlan(JSON.parse(text));
    assert.deepEqual(back, plan);
    assert.equal(serializePlan(back), text);
  });
}

test('a plan records per request what is sent: planned context, output cap, body length, and the identity', async () => {
  const plan = await planOf([
    '--requests',
    '5',
    '--ctx-tokens',
    '400',
    '--max-tokens',
    '16',
    '--tokenizer',
    'chars:3.0',
    '--prefix',
    'none',
  ]);
  assert.equal(plan.requests.count, 5);
  assert.deepEqual(plan.requests.planned_tokens, [400, 400, 400, 400, 400]);
  assert.deepEqual(plan.requests.max_tokens, [16, 16, 16, 16, 16]);
  assert.equal(plan.prompts.kind, 'synthetic');
  if (plan.prompts.kind !== 'synthetic') return;
  // chars:3.0 cuts 3 characters per planned token, less the tail line.
  for (const chars of plan.prompts.body_chars) assert.ok(chars !== null && chars > 1000 && chars < 1200, String(chars));
  assert.match(plan.identity.prompt_set_id ?? '', /^sha256:[0-9a-f]{64}$/);
  assert.equal(plan.identity.cache_policy, 'prefix=none;cache-bust=off');
  assert.equal(plan.identity.clock_origin, 'write');
  assert.equal(plan.load.kind, 'closed');
});

test('the same flags give the same plan; another seed another one', async () => {
  const args = ['--requests', '20', '--seed', '3', '--tokenizer', 'chars:3.0'];
  assert.equal(serializePlan(await planOf(args)), serializePlan(await planOf(args)));
  assert.notDeepEqual(
    (await planOf(['--requests', '20', '--seed', '4', '--tokenizer', 'chars:3.0'])).requests.planned_tokens,
    (await planOf(args)).requests.planned_tokens,
  );
});

test('a damaged plan is refused, naming the field', async () => {
  const plan = JSON.parse(
    serializePlan(await planOf(['--requests', '4', '--ctx-tokens', '300', '--tokenizer', 'chars:3.0'])),
  ) as Record<string, Record<string, unknown>>;
  const short = structuredClone(plan);
  (short['requests']!['max_tokens'] as number[]).pop();
  assert.throws(
    () => parsePlan(short, 'p.json'),
    (e: unknown) =>
      e instanceof InputFileError &&
      /p\.json: not a valid run plan: requests\.max_tokens: has 3 entries for 4 requests/.test(e.message),
  );
  const unknownKey = structuredClone(plan);
  unknownKey['client']!['timeout'] = 5;
  assert.throws(() => parsePlan(unknownKey, 'p.json'), /client: .*timeout/);
  const badModel = structuredClone(plan);
  badModel['identity']!['model'] = 7;
  assert.throws(() => parsePlan(badModel, 'p.json'), /identity\.model/);
  assert.throws(
    () => parsePlan({ schema: 'servebench.plan/v1' }, 'p.json'),
    /is not a servebench run plan \(schema "servebench\.plan\/v1"/,
  );
});
