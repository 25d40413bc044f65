/**
 * `servebench compare` end to end: two runs of one workload against the simulator compare
 * (exit 0); every identity field changed alone in a copy blocks with its name (exit 1);
 * --allow-mismatch compares anyway and still lists the differences; the bootstrap is seeded;
 * --fail-on sets the exit status; reference files compare only with --allow-mismatch.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { IDENTITY_FIELD_NAMES } from '../../src/result/identity.js';
import { runCli } from '../helpers/cli.js';
import { fixtureFiles } from '../helpers/fixtures.js';

/** Edited copies of result files: loosely typed on purpose. */
type Json = Record<string, any>;

const dir = mkdtempSync(join(tmpdir(), 'servebench-compare-'));
const A = join(dir, 'a.json');
const B = join(dir, 'b.json');
let sim: SimHandle;
let flags: string[];

before(async () => {
  sim = await startSim({
    max_model_len: 8192,
    prefill_tok_s: 400000,
    decode_step_ms: 2,
    max_num_seqs: 4,
    output_tokens: { kind: 'uniform', min_tokens: 4, max_tokens: 24 },
  });
  // A sampled plan (small buckets), so the context seed is part of the identity.
  flags = [
    '--base-url',
    sim.url,
    '--requests',
    '24',
    '--concurrency',
    '4',
    '--context-buckets',
    '256:0.5,512:1.0',
    '--max-tokens',
    '24',
    '--quiet',
  ];
  for (const output of [A, B]) {
    const run = await runCli(['run', ...flags, '--output', output]);
    assert.equal(run.code, 0, run.stderr);
  }
});
after(async () => sim.close());

const read = (file: string): Json => JSON.parse(readFileSync(file, 'utf8')) as Json;
let copies = 0;
function copyWith(base: Json, edit: (doc: Json) => void): string {
  const doc = structuredClone(base);
  edit(doc);
  const file = join(dir, `copy-${++copies}.json`);
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
}
async function compareJson(args: string[]): Promise<{ code: number | null; report: Json; stderr: string }> {
  const run = await runCli(['compare', '--json', '--bootstrap', '300', ...args]);
  return { code: run.code, report: run.stdout === '' ? {} : (JSON.parse(run.stdout) as Json), stderr: run.stderr };
}

test('two runs of the same workload on the simulator are comparable: exit 0, every figure with an interval', async () => {
  const run = await runCli(['compare', A, B]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /workload identity: the same in all \d+ fields/);
  assert.match(run.stdout, /TTFT p95 .*\[.*\] ms/);
  const { report } = await compareJson([A, B]);
  const c = report['comparisons'][0];
  assert.equal(c['comparable'], true);
  for (const m of c['metrics'] as Json[]) {
    assert.ok(m['ci'] !== null, `${m['metric']} has an interval`);
    assert.ok(['better', 'worse', 'no significant difference'].includes(m['verdict']), m['verdict']);
  }
  assert.deepEqual(Object.keys(report), [...Object.keys(report)].sort(), 'sorted keys');
});

/** Per identity field: an edit of the candidate that changes that field alone (and a baseline edit where the field needs a context). */
const CASES: { field: string; base?: (d: Json) => void; change: (d: Json) => void }[] = [
  { field: 'model', change: (d) => (d['model'] = 'another-model') },
  { field: 'endpoint', change: (d) => (d['servebench']['config']['endpoint'] = 'messages') },
  {
    field: 'conversations',
    change: (d) =>
      (d['servebench']['config'] = {
        ...d['servebench']['config'],
        conversations: null,
        turns: 4,
        turn_tokens: 128,
        think_time_s: 0,
      }),
  },
  { field: 'tools', change: (d) => (d['servebench']['config']['tools'] = 'agent-tools.json') },
  { field: 'measurement_protocol', change: (d) => (d['measurement_protocol'] = 'capacity-v4-reasoning') },
  { field: 'context_tokens', change: (d) => (d['context_tokens'] = 512) },
  { field: 'context_distribution', change: (d) => (d['context_distribution'] = { 256: 1, 512: 23 }) },
  { field: 'context_seed', change: (d) => (d['context_seed'] = 7) },
  { field: 'prompt_set_id', change: (d) => (d['prompt_set_id'] = `sha256:${'0'.repeat(64)}`) },
  { field: 'cache_policy', change: (d) => (d['cache_policy'] = 'prefix=unique;cache-bust=off') },
  { field: 'max_tokens', change: (d) => (d['max_tokens'] = 48) },
  { field: 'requests', change: (d) => (d['requests'] = 30) },
  {
    field: 'load_mode',
    change: (d) => (d['servebench']['load'] = { ...d['servebench']['load'], mode: 'open', max_concurrency: 4 }),
  },
  { field: 'concurrency', change: (d) => (d['concurrency'] = 8) },
  { field: 'rate', change: (d) => (d['servebench']['load']['rate'] = 5) },
  {
    field: 'arrival',
    base: (d) =>
      (d['servebench']['load'] = {
        ...d['servebench']['load'],
        mode: 'open',
        rate: 4,
        arrival: 'poisson',
        burstiness: 1,
        max_concurrency: 4,
      }),
    change: (d) => (d['servebench']['load']['arrival'] = 'constant'),
  },
  { field: 'ramp_s', change: (d) => (d['servebench']['load']['ramp_s'] = 2) },
  {
    field: 'duration_s',
    base: (d) => (d['servebench']['load']['duration_s'] = 30),
    change: (d) => (d['servebench']['load']['duration_s'] = 60),
  },
  { field: 'shared_prefix_burst', change: (d) => (d['serve_flags']['shared_prefix_burst'] = true) },
  { field: 'thinking_mode', change: (d) => (d['serve_flags']['thinking_mode'] = 'enabled') },
  { field: 'no_thinking', change: (d) => (d['serve_flags']['no_thinking'] = true) },
  { field: 'reasoning_effort', change: (d) => (d['serve_flags']['reasoning_effort'] = 'high') },
  { field: 'tokenizer', change: (d) => (d['servebench']['config']['tokenizer'] = 'tiktoken:o200k_base') },
  { field: 'dataset', change: (d) => (d['servebench']['config']['dataset'] = '/data/prompts.jsonl') },
  { field: 'ignore_eos', change: (d) => (d['servebench']['config']['ignore_eos'] = true) },
  { field: 'min_tokens', change: (d) => (d['servebench']['config']['min_tokens'] = 8) },
  {
    field: 'think_tags',
    change: (d) => (d['servebench']['reasoning_parser'] = { setting: 'auto', think_tag_requests: 3 }),
  },
  { field: 'warmup', change: (d) => (d['servebench']['config']['warmup'] = '5') },
  { field: 'clock_origin', change: (d) => (d['servebench']['clock']['t0'] = 'hand-over') },
];

test('the cases below cover every identity field', () => {
  assert.deepEqual(CASES.map((c) => c.field).sort(), [...IDENTITY_FIELD_NAMES].sort());
});

test('each identity field changed alone blocks, named with both values (exit 1)', async () => {
  const base = read(A);
  for (const c of CASES) {
    const baseline = c.base ? copyWith(base, c.base) : A;
    const candidate = copyWith(read(baseline), c.change);
    const text = await runCli(['compare', '--bootstrap', '50', baseline, candidate]);
    assert.equal(text.code, 1, `${c.field}: ${text.stdout}${text.stderr}`);
    assert.match(text.stdout, new RegExp(`NOT COMPARABLE[\\s\\S]*\\n  ${c.field} `), c.field);
    const { code, report } = await compareJson(['--bootstrap', '50', baseline, candidate]);
    assert.equal(code, 1);
    const comparison = report['comparisons'][0];
    assert.deepEqual(comparison['mismatches'], [c.field], `${c.field} changed alone`);
    assert.deepEqual(comparison['metrics'], [], 'no figures compared when blocked');
  }
});

test('--allow-mismatch compares anyway (exit 0) and still lists every difference; a field list allows only those', async () => {
  const candidate = copyWith(read(B), (d) => {
    d['max_tokens'] = 48;
    d['model'] = 'other';
  });
  const all = await runCli(['compare', '--bootstrap', '100', A, candidate, '--allow-mismatch']);
  assert.equal(all.code, 0, all.stderr);
  assert.match(all.stdout, /2 of \d+ fields differ \(allowed by --allow-mismatch\)/);
  assert.match(all.stdout, /max_tokens \(allowed\)\s+24\s+48/);
  assert.match(all.stdout, /TTFT p50/);
  const some = await compareJson(['--allow-mismatch', 'model', A, candidate]);
  assert.equal(some.code, 1, 'max_tokens is not allowed');
  assert.deepEqual(some.report['comparisons'][0]['blocking'], ['max_tokens']);
  const both = await compareJson(['--allow-mismatch=model,max_tokens', A, candidate]);
  assert.equal(both.code, 0);
  assert.equal(both.report['comparisons'][0]['comparable'], false, 'still not the same workload');
  assert.deepEqual(both.report['comparisons'][0]['mismatches'], ['model', 'max_tokens']);
});

test('the bootstrap is seeded: the same seed gives identical intervals, another seed different ones', async () => {
  const intervals = async (seed: string): Promise<unknown> =>
    (await compareJson(['--seed', seed, A, B])).report['comparisons'][0]['metrics'].map((m: Json) => m['ci']);
  const first = await intervals('11');
  assert.deepEqual(await intervals('11'), first);
  assert.notDeepEqual(await intervals('12'), first);
});

test('--fail-on: a regression beyond its limit exits 1, within it 0; verdicts follow the direction', async () => {
  // The baseline's TTFTs are set to a tight spread, so the verdict depends on the comparison, not
  // on how this machine scheduled the simulator's run (a wide spread of 24 queueing delays can
  // leave a 1.5× shift inside the bootstrap interval). Each stays below its row's E2E.
  // 1.00, 1.01, … 1.23 ms: below every row's E2E (at least a prefill and 4 decode steps of 2 ms).
  const firstToken = (row: Json, i: number): number => Math.min(1 + 0.01 * i, 0.5 * row['e2e_ms']);
  const base = copyWith(read(A), (d) => {
    d['request_timings'].forEach((row: Json, i: number) => {
      row['ttft_ms'] = firstToken(row, i);
      row['time_to_first_output_ms'] = firstToken(row, i);
    });
  });
  // The candidate's every TTFT (and TTFO) is 1.5× the baseline's: a clear latency regression.
  const slower = copyWith(read(base), (d) => {
    for (const row of d['request_timings']) {
      row['ttft_ms'] *= 1.5;
      row['time_to_first_output_ms'] *= 1.5;
    }
  });
  const beyond = await runCli(['compare', base, slower, '--fail-on', 'ttft_p95:+10%,throughput:-5%']);
  assert.equal(beyond.code, 1, beyond.stdout);
  assert.match(beyond.stdout, /ttft_p95:\+10%\s+FAIL: moved \+50\.00%/);
  const within = await runCli(['compare', base, slower, '--fail-on', 'ttft_p95:+60%,e2e_p95:+1%']);
  assert.equal(within.code, 0, within.stdout);
  const { report } = await compareJson([base, slower]);
  const verdict = (id: string): string =>
    report['comparisons'][0]['metrics'].find((m: Json) => m['metric'] === id)['verdict'];
  assert.equal(verdict('ttft_p50'), 'worse');
  // Doubling every decode rate is an improvement.
  const faster = copyWith(read(A), (d) => {
    for (const row of d['request_timings']) if (row['decode_tok_s'] !== null) row['decode_tok_s'] *= 2;
  });
  const better = await compareJson([A, faster, '--fail-on', 'decode_p50:-5%']);
  assert.equal(better.code, 0);
  assert.equal(
    better.report['comparisons'][0]['metrics'].find((m: Json) => m['metric'] === 'decode_p50')['verdict'],
    'better',
  );
});

test('bad --fail-on and other bad usage: exit 2 with one line', async () => {
  for (const spec of ['ttft_p95:-10%', 'nope:+5%', 'ttft_p95', 'throughput:-5ms', '']) {
    const run = await runCli(['compare', A, B, '--fail-on', spec]);
    assert.equal(run.code, 2, `${spec}: ${run.stdout}`);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
    assert.match(run.stderr, /^servebench compare: --fail-on/);
  }
  for (const args of [
    [A],
    [A, B, '--bootstrap', 'x'],
    [A, join(dir, 'missing.json')],
    [A, B, '--allow-mismatch=nope'],
  ]) {
    const run = await runCli(['compare', ...args]);
    assert.equal(run.code, 2, args.join(' '));
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  }
});

test('reference files: the same file twice is blocked because prompt_set_id and cache_policy are not recorded; --allow-mismatch compares their rows', async () => {
  const files = fixtureFiles();
  const withRows = files.find((f) => f.includes('deepseek-0731-native-kv-offload-evidence__capacity-4k-c1-r3'))!;
  const blocked = await runCli(['compare', withRows, withRows]);
  assert.equal(blocked.code, 1);
  assert.match(blocked.stdout, /\n  prompt_set_id: not recorded in either; the reference harness never records it/);
  assert.match(blocked.stdout, /reference harness files never record prompt_set_id or cache_policy/);
  const allowed = await compareJson(['--allow-mismatch', withRows, withRows]);
  assert.equal(allowed.code, 0);
  const metrics = allowed.report['comparisons'][0]['metrics'] as Json[];
  assert.ok(metrics.find((m) => m['metric'] === 'ttft_p50')!['ci'] !== null, 'reference rows are resampled');
  // Pre-v2 files have no rows: deltas from the stored figures, no interval.
  const preV2 = files
    .filter((f) => !('measurement_protocol' in (JSON.parse(readFileSync(f, 'utf8')) as Json)))
    .slice(0, 3);
  const three = await compareJson(['--allow-mismatch', ...preV2]);
  assert.equal(three.code, 0);
  assert.equal(three.report['comparisons'].length, 2, 'each file against the first');
  const ttft = (three.report['comparisons'][0]['metrics'] as Json[]).find((m) => m['metric'] === 'ttft_p50')!;
  assert.equal(ttft['verdict'], 'no interval');
  assert.ok(typeof ttft['delta'] === 'number');
  // A servebench result against a reference file: allowed, compared.
  const mixed = await compareJson(['--allow-mismatch', A, withRows]);
  assert.equal(mixed.code, 0);
  assert.ok(mixed.report['comparisons'][0]['mismatches'].includes('prompt_set_id'));
});

test('two reference files: prompt_set_id and cache_policy are "not recorded in either", not differences, and still block (fail closed)', async () => {
  const [r1, r3] = ['r1', 'r3'].map((r) =>
    fixtureFiles().find((f) => f.endsWith(`deepseek-0731-native-kv-offload-evidence__capacity-4k-c1-${r}.json`))!,
  );
  const text = await runCli(['compare', r1!, r3!]);
  assert.equal(text.code, 1, text.stdout + text.stderr);
  assert.match(
    text.stdout,
    /workload identity: no field differs, 2 of \d+ not recorded, so not shown equal: NOT COMPARABLE\n/,
  );
  assert.doesNotMatch(text.stdout, /fields differ/);
  assert.match(
    text.stdout,
    /\n  prompt_set_id: not recorded in either; the reference harness never records it \(docs\/protocol\.md#why-reference-results-never-compare\)\n/,
  );
  assert.match(text.stdout, /\n  cache_policy: not recorded in either; /);
  const { code, report } = await compareJson([r1!, r3!]);
  assert.equal(code, 1);
  const c = report['comparisons'][0];
  assert.deepEqual(c['differing'], []);
  assert.deepEqual(c['not_recorded'], ['prompt_set_id', 'cache_policy']);
  assert.deepEqual(
    c['mismatches'],
    ['prompt_set_id', 'cache_policy'],
    'unknown fields still keep the pair from being comparable',
  );
  assert.equal(c['comparable'], false);
  // Against a servebench result, the one side that records the field is shown with its value.
  const mixed = await runCli(['compare', '--bootstrap', '50', A, r1!]);
  assert.match(
    mixed.stdout,
    /\n  prompt_set_id: not recorded in B; the reference harness never records it \(docs\/protocol\.md#why-reference-results-never-compare\); A: sha256:[0-9a-f]{64}\n/,
  );
  assert.match(mixed.stdout, /\d+ of \d+ fields differ, 2 of \d+ not recorded, so not shown equal: NOT COMPARABLE/);
});

test('--cold-connections starts the clock elsewhere (clock_origin): blocked against a default run, the same as a reference file', async () => {
  const cold = join(dir, 'cold.json');
  const run = await runCli(['run', ...flags, '--cold-connections', '--output', cold]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(read(cold)['servebench']['clock']['t0'], 'hand-over');
  assert.equal(read(A)['servebench']['clock']['t0'], 'write');
  const text = await runCli(['compare', '--bootstrap', '50', A, cold]);
  assert.equal(text.code, 1, text.stdout);
  assert.match(text.stdout, /1 of \d+ fields differ: NOT COMPARABLE\n.*\n  clock_origin\s+write\s+hand-over\n/);
  const { report } = await compareJson(['--bootstrap', '50', A, cold]);
  assert.deepEqual(report['comparisons'][0]['mismatches'], ['clock_origin']);
  // A reference file used the hand-over clock by definition: it differs from a default run, matches a cold one.
  const reference = fixtureFiles().find((f) =>
    f.includes('deepseek-0731-native-kv-offload-evidence__capacity-4k-c1-r3'),
  )!;
  const origin = async (a: string, b: string): Promise<Json> =>
    (await compareJson(['--allow-mismatch', '--bootstrap', '50', a, b])).report['comparisons'][0]['identity'].find(
      (f: Json) => f['field'] === 'clock_origin',
    );
  const vsDefault = await origin(reference, A);
  assert.equal(vsDefault['status'], 'differs');
  assert.deepEqual([vsDefault['a']['value'], vsDefault['b']['value']], ['hand-over', 'write']);
  assert.equal((await origin(reference, cold))['status'], 'same');
  // A servebench file without servebench.clock.t0: the write clock unless its connections were cold; without servebench.clock, older than the write clock.
  const withoutT0 = (file: string): string => copyWith(read(file), (d) => delete d['servebench']['clock']['t0']);
  assert.equal((await origin(withoutT0(A), A))['status'], 'same');
  assert.equal((await origin(withoutT0(cold), cold))['status'], 'same');
  assert.equal(
    (
      await origin(
        copyWith(read(A), (d) => delete d['servebench']['clock']),
        cold,
      )
    )['status'],
    'same',
  );
});
