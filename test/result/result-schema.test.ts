/**
 * The result is typed once: the reader's era schemas accept every real file, the schema of what
 * servebench writes (result/result-schema.ts) accepts fresh runs of each load model — strict, so
 * a key the runner writes but the schema does not name fails here — and the typed value parsed
 * from a file writes back to the same bytes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { checkResult } from '../../src/result/schema.js';
import { capacityResultSchema, checkCapacityResult, type CapacityResult } from '../../src/result/result-schema.js';
import { parseResultText } from '../../src/result/io.js';
import { isFloatKey, serializeJson, serializeResult } from '../../src/result/pyjson.js';
import { InputFileError } from '../../src/util/errors.js';
import { runCli } from '../helpers/cli.js';
import { fixtureFiles, seedFile } from '../helpers/fixtures.js';

let sim: SimHandle;
let faulty: SimHandle;
const dir = mkdtempSync(join(tmpdir(), 'servebench-result-schema-'));
const SMALL = ['--max-tokens', '8', '--shared-prefix-tokens', '0', '--quiet'];
/** Twelve synthetic prompts of 1,024 tokens. */
const N = ['--requests', '12', '--ctx-tokens', '1024'];

before(async () => {
  const fast = { max_num_seqs: 8, prefill_tok_s: 200000, decode_step_ms: 2, decode_batch_slowdown: 0 };
  sim = await startSim(fast);
  // Failures of several kinds, some retried: rows and failures with `attempts`, `servebench.retries`.
  faulty = await startSim({ ...fast, seed: 3, faults: 'rate=0.5:mix=429,reset_mid' });
});

after(async () => {
  await sim.close();
  await faulty.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs servebench on the simulator and returns the result file's text. */
async function freshRun(name: string, extra: string[], target: SimHandle = sim): Promise<string> {
  const output = join(dir, `${name}.json`);
  const run = await runCli(['run', '--base-url', target.url, ...SMALL, '--output', output, ...extra]);
  assert.ok(run.code === 0 || (target === faulty && run.code === 1), run.stderr);
  return readFileSync(output, 'utf8');
}

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

function typed(text: string): CapacityResult {
  const checked = checkCapacityResult(JSON.parse(text));
  assert.ok(checked.ok, checked.ok ? '' : checked.problem);
  return checked.result;
}

test('the reader accepts the seed and every real result file of every era', () => {
  for (const file of [seedFile(), ...fixtureFiles()]) {
    const checked = checkResult(JSON.parse(readFileSync(file, 'utf8')));
    assert.ok(checked.ok, `${file}: ${checked.ok ? '' : checked.problems.join('; ')}`);
  }
});

test('the seed parsed by its era schema writes back byte for byte', () => {
  const text = readFileSync(seedFile(), 'utf8');
  const checked = checkResult(JSON.parse(text));
  assert.ok(checked.ok);
  assert.equal(serializeJson(checked.result.doc), `${text}\n`);
});

test('fresh runs of every load model match the written-result schema, and their typed values write back the same bytes', async () => {
  const runs = {
    closed: await freshRun('closed', [
      ...N,
      '--concurrency',
      '3',
      '--slo',
      'ttft_p95<=5000,decode_p50>=1tok/s',
      '--warmup',
      '2',
      '--retries',
      '1',
    ]),
    open: await freshRun('open', [
      ...N,
      '--rate',
      '40',
      '--max-concurrency',
      '4',
      '--workers',
      '2',
      '--tokenizer',
      'chars:4',
    ]),
    cold: await freshRun('cold', [...N, '--concurrency', '2', '--cold-connections']),
    trace: await freshRun('trace', [
      '--trace',
      write(
        'trace.jsonl',
        '{"timestamp": 1000, "input_length": 300, "output_length": 4}\n{"timestamp": 1050, "input_length": 900, "output_length": 6}\n',
      ),
    ]),
    dataset: await freshRun('dataset', [
      '--requests',
      '4',
      '--concurrency',
      '2',
      '--dataset',
      write('data.jsonl', '{"prompt": "hello there"}\n{"prompt": "tell me a story"}\n'),
    ]),
    failures: await freshRun(
      'failures',
      [...N, '--concurrency', '2', '--retries', '2', '--retry-max-wait', '0.05'],
      faulty,
    ),
  };
  for (const [name, text] of Object.entries(runs)) {
    const result = typed(text);
    assert.equal(serializeResult(result), text, `${name}: read → typed → written is byte-identical`);
    // The reader's view of the same file agrees.
    assert.equal(parseResultText(`${name}.json`, text).result.era, 'current');
  }
  assert.equal(
    typed(runs.closed).servebench.metrics.goodput?.clauses.length,
    2,
    'the SLO clauses are in the goodput block',
  );
  assert.equal(typed(runs.open).servebench.workers?.count, 2);
  assert.ok(typed(runs.failures).failed > 0, 'the faulty run has failures');
});

test('a result rebuilt from its journal matches the schema too', async () => {
  const output = join(dir, 'journaled.json');
  const run = await runCli(['run', '--base-url', sim.url, ...SMALL, ...N, '--concurrency', '2', '--output', output]);
  assert.equal(run.code, 0, run.stderr);
  const rebuilt = join(dir, 'rebuilt.json');
  const rebuild = await runCli(['rebuild', `${output.replace(/\.json$/, '')}.journal.jsonl`, '--output', rebuilt]);
  assert.equal(rebuild.code, 0, rebuild.stderr);
  const text = readFileSync(rebuilt, 'utf8');
  typed(text);
  // A complete journal rebuilds the run's own result.
  assert.equal(text, readFileSync(output, 'utf8'));
});

test('a result missing a required key is refused in one line that names the key', async () => {
  const text = await freshRun('missing', [...N, '--concurrency', '2']);
  const withoutBlock = JSON.parse(text) as Record<string, Record<string, unknown>>;
  delete withoutBlock['servebench']!['metrics'];
  const checked = checkCapacityResult(withoutBlock);
  assert.equal(checked.ok, false);
  if (checked.ok) return;
  assert.doesNotMatch(checked.problem, /\n/);
  assert.match(checked.problem, /^servebench\.metrics: /);

  const withoutRows = JSON.parse(text) as Record<string, unknown>;
  delete withoutRows['request_timings'];
  assert.throws(
    () => parseResultText('missing.json', JSON.stringify(withoutRows)),
    (e: unknown) =>
      e instanceof InputFileError && !e.message.includes('\n') && /missing\.json: .*request_timings/.test(e.message),
  );
});

test('a key the schema does not name is refused, naming it', async () => {
  const text = await freshRun('extra', [...N, '--concurrency', '2']);
  const doc = JSON.parse(text) as Record<string, Record<string, unknown>>;
  doc['servebench']!['undescribed_key'] = 1;
  const checked = checkCapacityResult(doc);
  assert.equal(checked.ok, false);
  if (!checked.ok) assert.match(checked.problem, /undescribed_key/);
});

/** Every number the schema types, by the key it is written under (an array's numbers take the array's key). */
function numberKeys(schema: unknown, key: string, out: { key: string; int: boolean }[]): void {
  const def = (schema as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def;
  switch (def.type) {
    case 'number':
      out.push({ key, int: def['format'] === 'safeint' });
      return;
    case 'optional':
    case 'nullable':
      return numberKeys(def['innerType'], key, out);
    case 'array':
      return numberKeys(def['element'], key, out);
    case 'record':
      return numberKeys(def['valueType'], key, out);
    case 'union':
      for (const option of def['options'] as unknown[]) numberKeys(option, key, out);
      return;
    case 'object':
      for (const [k, v] of Object.entries(def['shape'] as Record<string, unknown>)) numberKeys(v, k, out);
      return;
    default:
  }
}

test('the typed schema and the float key rule agree: no integer is named like a float, and the non-integers named like integers are listed', () => {
  const keys: { key: string; int: boolean }[] = [];
  numberKeys(capacityResultSchema, '', keys);
  assert.ok(keys.length > 300, `found ${keys.length} number keys`);
  // An integer under a float key would be written as 2.0; a float under an int key, if integral, as 2.
  const intsNamedAsFloats = keys.filter((k) => k.int && isFloatKey(k.key)).map((k) => k.key);
  assert.deepEqual(intsNamedAsFloats, []);
  // Non-integers whose key has no float suffix: written as ints whenever the value happens to be integral.
  const floatsWithoutSuffix = [...new Set(keys.filter((k) => !k.int && !isFloatKey(k.key)).map((k) => k.key))].sort();
  assert.deepEqual(floatsWithoutSuffix, FLOATS_WITHOUT_SUFFIX);
});

/**
 * Numbers typed as any number whose keys carry no float suffix: the writer prints them as ints when
 * integral (a share of 0, a rate of 4), as it always has — renaming them would change the bytes.
 * Listed so that a new one is a decision, not an accident: a new float key takes a float suffix.
 */
const FLOATS_WITHOUT_SUFFIX: string[] = [
  'burstiness', // servebench.load (open loop)
  'chunk_processing_lag_ms_max', // servebench.client
  'event_loop_stall_share',
  'first_tokens_after_stalls_share',
  'late_turns_cpu_share',
  'late_turns_run_delay_share',
  'mean_prefix_cache_hit', // servebench.conversations.by_turn (names fixed by the feature's spec; docs/conversations.md)
  'mean_prompt_tokens',
  'peak', // servebench.server_metrics.derived: a gauge's largest sample, as the server wrote it (KV usage is a ratio, running a count)
  'rate', // servebench.load (open loop)
  'raw', // servebench.server_metrics.series: the server's own samples of series servebench does not know, as it wrote them
  'run_delay_share',
  'seconds', // servebench.config.warmup
  'tokens_per_char', // servebench.sizing.fits[]
  'turns_completed_mean', // servebench.conversations
  'values', // servebench.server_metrics.series: the server's samples by canonical series, as it wrote them
];
