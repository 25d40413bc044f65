/** The CLI as a user meets it: exit codes, one-line errors, default output path, dry run. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { runCli, spawnCli } from '../helpers/cli.js';

let sim: SimHandle;
before(async () => {
  sim = await startSim({ max_model_len: 4096, prefill_tok_s: 200000, decode_step_ms: 1 });
});
after(async () => sim.close());

test('no command prints usage and exits 2; --help exits 0', async () => {
  const none = await runCli([]);
  assert.equal(none.code, 2);
  assert.match(none.stdout, /usage: servebench <command>/);
  const help = await runCli(['run', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--ctx-tokens N/);
});

test('bad flags give one line naming the flag, exit 2, no stack trace', async () => {
  for (const args of [
    ['run', '--requests', 'x'],
    ['run', '--nope'],
    ['frobnicate'],
    ['run', '--base-url', 'http://localhost:1/v1'],
  ]) {
    const run = await runCli(args);
    assert.equal(run.code, 2, args.join(' '));
    assert.equal(run.stderr.trim().split('\n').length, 1, `one line: ${run.stderr}`);
    assert.doesNotMatch(run.stderr, /\n\s+at /);
  }
});

test('without --output the result goes to results/<run_id>.json under the working directory', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'servebench-cli-'));
  const run = await runCli(
    [
      'run',
      '--base-url',
      sim.url,
      '--requests',
      '3',
      '--concurrency',
      '3',
      '--ctx-tokens',
      '512',
      '--max-tokens',
      '4',
      '--quiet',
    ],
    { cwd },
  );
  assert.equal(run.code, 0, run.stderr);
  const files = readdirSync(join(cwd, 'results')).sort();
  assert.equal(files.length, 2, 'the result and its journal');
  assert.match(files[0]!, /^benchmark-\d{8}T\d{6}Z\.journal\.jsonl$/);
  assert.match(files[1]!, /^benchmark-\d{8}T\d{6}Z\.json$/);
  files.shift();
  const result = JSON.parse(readFileSync(join(cwd, 'results', files[0]!), 'utf8')) as Record<string, unknown>;
  assert.equal(result['model'], 'servebench-sim', 'the only listed model is used when --model is absent');
  assert.equal(result['max_context_tokens'], 4096);
  assert.match(run.stdout, /result written to .*results\/benchmark-/);
});

test("failed requests are recorded with the server's message, the result is written, exit 1", async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'servebench-cli-'));
  const output = join(cwd, 'r.json');
  // --max-model-len lies about the window, so the prompts exceed what the simulator accepts.
  const run = await runCli(
    [
      'run',
      '--base-url',
      sim.url,
      '--requests',
      '2',
      '--concurrency',
      '2',
      '--ctx-tokens',
      '8000',
      '--max-model-len',
      '100000',
      '--max-tokens',
      '4',
      '--output',
      output,
      '--quiet',
    ],
    { cwd },
  );
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /req \d error: HTTPError: HTTP Error 400: Bad Request/);
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    failed: number;
    completed: number;
    failures: Record<string, unknown>[];
  };
  assert.equal(result.failed, 2);
  assert.equal(result.completed, 0);
  assert.equal(result.failures[0]!['error_type'], 'HTTPError');
  assert.equal(result.failures[0]!['http_status'], 400);
  assert.match(String(result.failures[0]!['error_body_excerpt']), /max_model_len|context|exceed/i);
});

test('a dead endpoint: calibration cannot start (one line, exit 2); with chars:3.0 every request fails with URLError and a result is still written', async () => {
  const dead = await startSim({});
  const url = dead.url;
  await dead.close();
  const cwd = mkdtempSync(join(tmpdir(), 'servebench-cli-'));
  const output = join(cwd, 'r.json');
  const calibrated = await runCli(
    [
      'run',
      '--base-url',
      url,
      '--model',
      'm',
      '--max-model-len',
      '8192',
      '--requests',
      '2',
      '--ctx-tokens',
      '64',
      '--output',
      output,
    ],
    { cwd },
  );
  assert.equal(calibrated.code, 2);
  assert.match(
    calibrated.stderr,
    /^servebench run: --tokenizer server: no tokenize endpoint .*Connection refused.*use --tokenizer hf:PATH, tiktoken:ENCODING or chars:3\.0\n$/,
  );
  const run = await runCli(
    [
      'run',
      '--base-url',
      url,
      '--model',
      'm',
      '--max-model-len',
      '8192',
      '--requests',
      '2',
      '--concurrency',
      '1',
      '--ctx-tokens',
      '64',
      '--tokenizer',
      'chars:3.0',
      '--output',
      output,
      '--quiet',
    ],
    { cwd },
  );
  assert.equal(run.code, 1, run.stderr);
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    failures: { error_type: string; error_message: string }[];
  };
  assert.deepEqual(
    result.failures.map((f) => f.error_type),
    ['URLError', 'URLError'],
  );
  assert.match(result.failures[0]!.error_message, /Connection refused/);
});

test('--dry-run --json prints the plan and touches nothing', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'servebench-cli-'));
  const run = await runCli(
    [
      'run',
      '--dry-run',
      '--json',
      '--requests',
      '10',
      '--seed',
      '1',
      '--max-model-len',
      '40000',
      '--max-tokens',
      '256',
    ],
    { cwd },
  );
  assert.equal(run.code, 0, run.stderr);
  const plan = JSON.parse(run.stdout) as {
    context_plan: number[];
    context_distribution: Record<string, number>;
    prompt_cap_tokens: number;
  };
  assert.equal(plan.prompt_cap_tokens, 40000 - 256 - 1024);
  // Seed 1's first ten buckets (docs/protocol.md#context-plan), clamped to the cap.
  assert.deepEqual(plan.context_plan, [16000, 38720, 38720, 32768, 32768, 32768, 38720, 38720, 16000, 16000]);
  assert.deepEqual(readdirSync(cwd), []);
});

test('--dry-run says how the client would stream: threads, connection warm-up and helper threads', async () => {
  // Its own process: the program lowers its helper threads when it starts (the subject here).
  const plain = await spawnCli([
    'run',
    '--dry-run',
    '--json',
    '--requests',
    '4',
    '--ctx-tokens',
    '512',
    '--tokenizer',
    'chars:3.0',
  ]);
  const client = (JSON.parse(plain.stdout) as { client: { helper_threads: { lowered: number; nice: number } | null } })
    .client;
  assert.deepEqual(
    { ...client, helper_threads: undefined },
    { workers: 1, connections: 'opened before the clock', helper_threads: undefined },
  );
  // The program lowers its helper threads at start-up (util/thread-priority.ts; Linux only).
  if (existsSync('/proc/self/task'))
    assert.ok(
      client.helper_threads !== null && client.helper_threads.lowered >= 4 && client.helper_threads.nice === 19,
      JSON.stringify(client.helper_threads),
    );
  const spread = await runCli([
    'run',
    '--dry-run',
    '--workers',
    '2',
    '--cold-connections',
    '--requests',
    '4',
    '--ctx-tokens',
    '512',
    '--tokenizer',
    'chars:3.0',
  ]);
  assert.equal(spread.code, 0, spread.stderr);
  assert.match(
    spread.stdout,
    /client +2 stream worker threads; connections cold \(opened by the first requests, inside their TTFT\)(; \d+ helper threads at nice 19)?$/m,
  );
});

test('an API key from the environment is sent but never written', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'servebench-cli-'));
  const output = join(cwd, 'r.json');
  const key = 'sk-planted-SECRET-4242';
  const run = await runCli(
    [
      'run',
      '--base-url',
      sim.url,
      '--api-key-env',
      'SB_TEST_KEY',
      '--requests',
      '2',
      '--ctx-tokens',
      '256',
      '--max-tokens',
      '4',
      '--output',
      output,
    ],
    { cwd, env: { ...process.env, SB_TEST_KEY: key } },
  );
  assert.equal(run.code, 0, run.stderr);
  const text = readFileSync(output, 'utf8');
  assert.ok(!text.includes(key) && !run.stdout.includes(key) && !run.stderr.includes(key));
  assert.match(text, /"api_key_env": "SB_TEST_KEY"/);
});

test('a manifest tier is recorded as tier, manifest and source_recipe', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'servebench-cli-'));
  writeFileSync(
    join(cwd, 'serves.toml'),
    `[tiers.sim]\nport = ${sim.port}\nmodel = "servebench-sim"\nengine = "sim-engine"\ngpu_role = "none"\n`,
  );
  const run = await runCli(
    [
      'run',
      '--manifest',
      'serves.toml',
      '--tier',
      'sim',
      '--requests',
      '1',
      '--ctx-tokens',
      '128',
      '--max-tokens',
      '2',
      '--output',
      'r.json',
      '--quiet',
    ],
    { cwd },
  );
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(readFileSync(join(cwd, 'r.json'), 'utf8')) as Record<string, unknown>;
  assert.equal(result['tier'], 'sim');
  assert.equal(result['manifest'], 'serves.toml');
  assert.equal(result['source_recipe'], 'serves.toml#sim');
  assert.equal(result['engine'], 'sim-engine');
  assert.equal(result['gpu'], 'none');
});

test('--dry-run of an open loop shows its planned arrivals; a time-bounded closed loop lists only its first requests', async () => {
  const open = await runCli([
    'run',
    '--dry-run',
    '--json',
    '--rate',
    '5',
    '--duration',
    '3',
    '--arrival',
    'constant',
    '--ctx-tokens',
    '512',
    '--tokenizer',
    'chars:3.0',
  ]);
  assert.equal(open.code, 0, open.stderr);
  const plan = JSON.parse(open.stdout) as {
    capacity: { requests: number };
    arrival_offsets_ms: number[];
    prompt_set_id: string | null;
  };
  // Constant arrivals at 5/s over 3 s: 0, 200, …, 3000 ms.
  assert.equal(plan.capacity.requests, 16);
  assert.deepEqual(plan.arrival_offsets_ms.slice(0, 3), [0, 200, 400]);
  assert.match(String(plan.prompt_set_id), /^sha256:/);
  const timed = await runCli([
    'run',
    '--dry-run',
    '--json',
    '--duration',
    '3',
    '--ctx-tokens',
    '512',
    '--tokenizer',
    'chars:3.0',
  ]);
  const timedPlan = JSON.parse(timed.stdout) as {
    context_plan: number[];
    context_plan_truncated: boolean;
    prompt_set_id: string | null;
  };
  assert.equal(timedPlan.context_plan.length, 1000);
  assert.equal(timedPlan.context_plan_truncated, true);
  assert.equal(timedPlan.prompt_set_id, null);
});

test('the package bin runs as a program (what npx servebench executes)', () => {
  // dist/test/integration → the package root.
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
    version: string;
  };
  const bin = join(root, pkg.bin['servebench']!);
  const run = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  assert.equal(run.error, undefined, `${bin} could not be executed: ${String(run.error)}`);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, new RegExp(pkg.version.replace(/\./g, '\\.')));
});

test(
  'a run from the command line lowers the helper threads and says so in the result',
  { skip: !existsSync('/proc/self/task') && 'needs /proc/self/task (Linux)' },
  () => {
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const output = join(mkdtempSync(join(tmpdir(), 'servebench-cli-')), 'result.json');
    // The embedded simulator, a handful of short requests: only the process's set-up is under test.
    const run = spawnSync(
      process.execPath,
      [
        join(root, 'dist/src/cli/main.js'),
        'run',
        '--requests',
        '4',
        '--concurrency',
        '2',
        '--max-tokens',
        '8',
        '--ctx-tokens',
        '128',
        '--tokenizer',
        'chars:3.0',
        '--output',
        output,
        '--quiet',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(run.status, 0, run.stderr);
    const helpers = (
      JSON.parse(readFileSync(output, 'utf8')) as { servebench: { helper_threads?: { lowered: number; nice: number } } }
    ).servebench.helper_threads;
    assert.equal(helpers?.nice, 19);
    assert.ok((helpers?.lowered ?? 0) >= 4, `V8's helper threads at least, got ${helpers?.lowered}`);
  },
);
