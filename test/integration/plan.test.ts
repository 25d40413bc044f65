/**
 * `servebench plan … --output P.json` then `servebench run --plan P.json` measures what a direct
 * `servebench run` with the same flags measures: the same prompt set, context plan, output caps and
 * token counts (prompts sized by the server's own tokenizer, a fixed seed; with --cache-bust the
 * ids still match, the salt being drawn per execution). A plan that does not fit the target, or
 * flags the plan fixes, are refused in one line naming what.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { simProcessesForFile } from '../helpers/sim-process.js';
import { parsePlan, serializePlan } from '../../src/plan/run-plan.js';

const sims = simProcessesForFile({
  fast: { prefill_tok_s: 2000000, decode_step_ms: 2, max_num_seqs: 64 },
  small: { prefill_tok_s: 2000000, decode_step_ms: 2, max_num_seqs: 64, max_model_len: 65536 },
});
const dir = mkdtempSync(join(tmpdir(), 'servebench-plan-cli-'));

interface Row {
  request_index: number;
  planned_context_tokens: number;
  prompt_tokens: number | null;
}
interface Result {
  prompt_set_id: string;
  cache_policy: string;
  context_distribution: Record<string, number>;
  max_tokens: number;
  requests: number;
  request_timings: Row[];
  servebench: Record<string, unknown>;
}

const read = (path: string): Result => JSON.parse(readFileSync(path, 'utf8')) as Result;

/**
 * What a plan fixes, as a result shows it: prompt set, plan, caps and the tokens the server
 * counted. A cache-busting salt is random text, counted as a token or two more or less from one
 * execution to the next (two direct runs differ the same way), so its counts are left out.
 */
function planned(result: Result, counts: boolean): unknown {
  return {
    prompt_set_id: result.prompt_set_id,
    cache_policy: result.cache_policy,
    context_distribution: result.context_distribution,
    max_tokens: result.max_tokens,
    requests: result.requests,
    rows: result.request_timings.map((r) => [
      r.request_index,
      r.planned_context_tokens,
      counts ? r.prompt_tokens : null,
    ]),
    config: result.servebench['config'],
    load: result.servebench['load'],
  };
}

async function roundTrip(name: string, flags: string[]): Promise<void> {
  const common = [
    '--base-url',
    sims.fast.url,
    '--tokenizer',
    'server',
    '--seed',
    '11',
    '--requests',
    '8',
    '--concurrency',
    '4',
    '--max-tokens',
    '4',
    '--quiet',
    ...flags,
  ];
  const planFile = join(dir, `${name}.plan.json`);
  const made = await runCli(['plan', ...common, '--output', planFile]);
  assert.equal(made.code, 0, made.stderr);
  const text = readFileSync(planFile, 'utf8');
  // The file is exactly the plan: it parses and re-serialises to the same text.
  assert.equal(serializePlan(parsePlan(JSON.parse(text))), text);
  const viaPlan = join(dir, `${name}.via-plan.json`);
  const run = await runCli(['run', '--plan', planFile, '--base-url', sims.fast.url, '--output', viaPlan, '--quiet']);
  assert.equal(run.code, 0, run.stderr);
  const direct = join(dir, `${name}.direct.json`);
  const directRun = await runCli(['run', ...common, '--output', direct]);
  assert.equal(directRun.code, 0, directRun.stderr);
  const a = read(viaPlan);
  const b = read(direct);
  assert.equal(a.prompt_set_id, JSON.parse(text).identity.prompt_set_id);
  const bust = flags.includes('--cache-bust');
  assert.deepEqual(planned(a, !bust), planned(b, !bust));
  assert.ok(a.request_timings.every((r) => r.prompt_tokens !== null && r.prompt_tokens > 0));
  // Executing a plan journals like any run: its rebuild is the same file.
  const rebuilt = join(dir, `${name}.rebuilt.json`);
  assert.equal((await runCli(['rebuild', viaPlan.replace(/\.json$/, '.journal.jsonl'), '--output', rebuilt])).code, 0);
  assert.equal(readFileSync(rebuilt, 'utf8'), readFileSync(viaPlan, 'utf8'));
}

test('plan, then run --plan, measures what a direct run with the same flags measures (server tokenizer, fixed seed)', async () => {
  await roundTrip('sampled', []);
});

test('with --cache-bust the prompt-set id still matches (the salt is per execution, not part of the set)', async () => {
  await roundTrip('bust', ['--cache-bust', '--prefix', 'unique']);
});

test('run --plan refuses the flags the plan fixes, naming them, before anything is sent', async () => {
  const planFile = join(dir, 'fixed.plan.json');
  assert.equal(
    (
      await runCli([
        'plan',
        '--base-url',
        sims.fast.url,
        '--tokenizer',
        'chars:3.0',
        '--requests',
        '2',
        '--ctx-tokens',
        '64',
        '--output',
        planFile,
        '--quiet',
      ])
    ).code,
    0,
  );
  const run = await runCli([
    'run',
    '--plan',
    planFile,
    '--base-url',
    sims.fast.url,
    '--requests',
    '5',
    '--seed',
    '2',
    '--output',
    join(dir, 'never.json'),
  ]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^servebench run: --plan fixes .*: --requests, --seed cannot be given with it/);
  assert.equal(run.stderr.trim().split('\n').length, 1);
});

test('a plan made for another window or model than the target reports is refused, naming the field', async () => {
  const planFile = join(dir, 'window.plan.json');
  assert.equal(
    (
      await runCli([
        'plan',
        '--base-url',
        sims.fast.url,
        '--tokenizer',
        'chars:3.0',
        '--requests',
        '2',
        '--ctx-tokens',
        '64',
        '--output',
        planFile,
        '--quiet',
      ])
    ).code,
    0,
  );
  const window = await runCli([
    'run',
    '--plan',
    planFile,
    '--base-url',
    sims.small.url,
    '--output',
    join(dir, 'never.json'),
  ]);
  assert.equal(window.code, 2, window.stderr);
  assert.match(
    window.stderr,
    /^servebench run: --plan: the plan's identity\.window_tokens is \d+, but .* reports a window of 65536/,
  );
  const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { identity: { model: string } };
  plan.identity.model = 'another-model';
  const other = join(dir, 'model.plan.json');
  writeFileSync(other, JSON.stringify(plan));
  const model = await runCli([
    'run',
    '--plan',
    other,
    '--base-url',
    sims.fast.url,
    '--output',
    join(dir, 'never.json'),
  ]);
  assert.equal(model.code, 2, model.stderr);
  assert.match(
    model.stderr,
    /^servebench run: --plan: the plan's identity\.model is 'another-model', but .*\/models lists servebench-sim/,
  );
});

test('plan never writes over one of its inputs, and needs --output', async () => {
  const rows = join(dir, 'rows.jsonl');
  writeFileSync(rows, '{"prompt":"hello"}\n');
  const over = await runCli([
    'plan',
    '--base-url',
    sims.fast.url,
    '--dataset',
    rows,
    '--tokenizer',
    'chars:3.0',
    '--output',
    rows,
  ]);
  assert.equal(over.code, 2);
  assert.match(over.stderr, /--output/);
  assert.equal(readFileSync(rows, 'utf8'), '{"prompt":"hello"}\n');
  const none = await runCli(['plan', '--base-url', sims.fast.url]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /--output FILE is required/);
  const planOverPlan = join(dir, 'self.plan.json');
  assert.equal(
    (
      await runCli([
        'plan',
        '--base-url',
        sims.fast.url,
        '--tokenizer',
        'chars:3.0',
        '--requests',
        '2',
        '--ctx-tokens',
        '64',
        '--output',
        planOverPlan,
        '--quiet',
      ])
    ).code,
    0,
  );
  const run = await runCli(['run', '--plan', planOverPlan, '--base-url', sims.fast.url, '--output', planOverPlan]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--output.*--plan|--plan.*--output/);
});

test('run --plan on a file that is not a plan is refused in one line naming the file', async () => {
  const broken = join(dir, 'broken.plan.json');
  writeFileSync(broken, '{"schema": "servebench.run-plan/v1",\n  "identity": }\n');
  const run = await runCli(['run', '--plan', broken, '--base-url', sims.fast.url]);
  assert.equal(run.code, 2);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0]!, /broken\.plan\.json/);
  assert.match(lines[0]!, /not valid JSON/);
  const other = join(dir, 'other.json');
  writeFileSync(other, '{"schema": "anvil-serving.benchmark/v1"}\n');
  const notPlan = await runCli(['run', '--plan', other, '--base-url', sims.fast.url]);
  assert.equal(notPlan.code, 2);
  assert.match(notPlan.stderr, /is not a servebench run plan/);
});
