/**
 * Plans that cannot measure anything, and bad input files, are refused with one line (exit 2)
 * before anything is sent — or, where only probing can tell, before any generation request.
 * Every run goes through a counting proxy in front of the simulator, which records every request,
 * so "nothing was sent" is observed on the wire, not assumed. The CLI runs in this process
 * (`main`, exactly what the binary calls), which keeps the many short runs quick.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { main } from '../../src/cli/main.js';
import { startCountingProxy, type CountingProxy } from '../helpers/counting-proxy.js';

let sim: SimHandle;
const dir = mkdtempSync(join(tmpdir(), 'servebench-refused-'));
before(async () => {
  sim = await startSim({ max_model_len: 8192, prefill_tok_s: 1_000_000, decode_step_ms: 1 });
});
after(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What a run printed and returned. */
interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `servebench ARGS` in this process (the proxy and the simulator are on real sockets all the same). */
async function cli(args: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: {},
    cwd: dir,
    isTTY: false,
    onSignal: () => () => {},
    now: () => new Date(),
  });
  return { code, stdout, stderr };
}

let n = 0;
function file(name: string, content: string): string {
  const path = join(dir, `${n++}-${name}`);
  writeFileSync(path, content);
  return path;
}

/** Runs `servebench run ARGS` against a fresh counting proxy in front of the simulator. */
async function runThroughProxy(
  args: string[],
  options: { probeUsageExtra?: number } = {},
): Promise<{ run: CliRun; proxy: CountingProxy; output: string }> {
  const proxy = await startCountingProxy(sim.url, options);
  const output = join(dir, `r${n++}.json`);
  try {
    const run = await cli(['run', '--base-url', proxy.url, '--output', output, '--quiet', ...args]);
    return { run, proxy, output };
  } finally {
    await proxy.close();
  }
}

/** Exit 2 with exactly one line on stderr (no stack trace), matching every pattern; no result written. */
function refusedWithOneLine(run: CliRun, output: string, ...patterns: RegExp[]): void {
  assert.equal(run.code, 2, `exit 2: ${run.stderr}`);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${run.stderr}`);
  for (const pattern of patterns) assert.match(lines[0]!, pattern);
  assert.ok(!existsSync(output), 'no result file');
}

test('a window that leaves every prompt too small for its envelope: exit 2, one line naming the flags, no generation request', async () => {
  const { run, proxy, output } = await runThroughProxy([
    '--model',
    'servebench-sim',
    '--max-model-len',
    '1090',
    '--requests',
    '8',
  ]);
  refusedWithOneLine(
    run,
    output,
    /^servebench run: no planned prompt can be built: the window leaves 2 tokens per prompt \(--max-model-len 1090 − --max-tokens 64 − --margin 1024\)/,
    /envelope/,
    /raise --max-model-len or lower --max-tokens or --margin$/,
  );
  assert.deepEqual(proxy.generations(), [], 'only sizing counts were sent');
});

test("the server's own window too small for every prompt: the line says so and names --max-tokens and --margin", async () => {
  // 8192 − 5 − 8180 = 7 tokens per prompt; the simulator's bare envelope counts about 20.
  const { run, proxy, output } = await runThroughProxy(['--max-tokens', '5', '--margin', '8180', '--requests', '4']);
  refusedWithOneLine(
    run,
    output,
    /the window leaves 7 tokens per prompt \(the server's window 8192 − --max-tokens 5 − --margin 8180\)/,
    /lower --max-tokens or --margin$/,
  );
  assert.deepEqual(proxy.generations(), []);
});

test('a run bounded by time whose every prompt is too small is refused the same way, before its first request', async () => {
  const { run, proxy, output } = await runThroughProxy([
    '--model',
    'servebench-sim',
    '--max-model-len',
    '1090',
    '--duration',
    '2',
  ]);
  refusedWithOneLine(run, output, /no planned prompt can be built: the window leaves 2 tokens per prompt/);
  assert.deepEqual(proxy.generations(), []);
});

test('a server whose /tokenize and usage.prompt_tokens disagree by far: exit 2 after the calibration probes, one line naming --tokenizer', async () => {
  const { run, proxy, output } = await runThroughProxy(
    ['--ctx-tokens', '4096', '--requests', '6', '--max-tokens', '8'],
    { probeUsageExtra: 100_000 },
  );
  refusedWithOneLine(
    run,
    output,
    /no planned prompt can be built: --ctx-tokens 4096 is less than the prompt envelope alone \(tail line and chat template, no body: 1000\d\d tokens\), 100000 of them the chat-template overhead/,
    /disagree/,
    /--tokenizer hf:PATH, tiktoken:ENCODING or chars:3\.0; otherwise raise --ctx-tokens to at least 1000\d\d$/,
  );
  assert.deepEqual(proxy.generations(), [], 'no generation request beyond the calibration probes');
  assert.ok(
    proxy.seen.some((r) => r.path.endsWith('/chat/completions') && r.maxTokens === 1),
    'the calibration probe was sent',
  );
});

test('a plan in which only some prompts are too small runs, and records those requests as failures as the reference does', async () => {
  // With 600 tokens of (false) template overhead, the 64-token bucket cannot be built; 2048 can.
  const { run, proxy, output } = await runThroughProxy(
    [
      '--context-buckets',
      '64:0.5,2048:1.0',
      '--requests',
      '8',
      '--concurrency',
      '4',
      '--max-tokens',
      '4',
      '--seed',
      '1',
    ],
    { probeUsageExtra: 600 },
  );
  assert.equal(run.code, 1, run.stderr);
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    completed: number;
    failed: number;
    context_distribution: Record<string, number>;
    failures: { error_type: string; error_message: string }[];
  };
  const small = result.context_distribution['64'] ?? 0;
  assert.ok(small > 0 && small < 8, `both buckets drawn: ${JSON.stringify(result.context_distribution)}`);
  assert.equal(result.failed, small);
  assert.equal(result.completed, 8 - small);
  for (const failure of result.failures) {
    assert.equal(failure.error_type, 'ValueError');
    assert.equal(failure.error_message, 'context target is too small for the benchmark prompt envelope');
  }
  assert.equal(proxy.generations().length, 8 - small, 'a prompt that cannot be built is never sent');
});

test('every input file is read and checked before anything is sent', async (t) => {
  const cases: { name: string; args: string[]; line: RegExp }[] = [
    {
      name: 'missing --dataset',
      args: ['--dataset', join(dir, 'no-such.jsonl')],
      line: /no-such\.jsonl: no such file$/,
    },
    {
      name: 'malformed --dataset',
      args: ['--dataset', file('d.jsonl', '{"prompt": "a"}\n{"prompt": 3}\n')],
      line: /d\.jsonl:2: field 'prompt' must be a string$/,
    },
    {
      name: 'missing --trace',
      args: ['--trace', join(dir, 'no-such-trace.jsonl')],
      line: /no-such-trace\.jsonl: no such file$/,
    },
    {
      name: 'malformed --trace',
      args: [
        '--trace',
        file('t.jsonl', '{"timestamp": 0, "input_length": 100, "output_length": 5}\n{"timestamp": 1}\n'),
      ],
      line: /t\.jsonl:2: needs one of/,
    },
    {
      name: 'malformed --context-buckets file',
      args: ['--context-buckets', file('b.json', '[{"tokens": 64}]')],
      line: /b\.json: \[0\]: needs numeric/,
    },
    {
      name: 'missing --manifest',
      args: ['--manifest', join(dir, 'no-such.toml'), '--tier', 'a'],
      line: /no-such\.toml: no such file$/,
    },
    { name: 'missing --api-key-file', args: ['--api-key-file', join(dir, 'no-such-key')], line: /no-such-key/ },
    {
      name: 'an invalid --sim-config with --base-url',
      args: ['--sim-config', file('sim.json', '{"decode_step_ms": -1}')],
      line: /--sim-config configures the built-in simulator only; it does not apply with --base-url$/,
    },
    {
      name: 'a valid --sim-config with --base-url',
      args: ['--sim-config', file('sim-ok.json', '{"decode_step_ms": 1}')],
      line: /--sim-config configures the built-in simulator only/,
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      // A trace sets the number of requests itself (--requests with --trace is refused).
      const count = c.args[0] === '--trace' ? [] : ['--requests', '2'];
      const { run, proxy, output } = await runThroughProxy([...count, ...c.args]);
      refusedWithOneLine(run, output, c.line);
      assert.deepEqual(proxy.seen, [], 'no request at all');
    });
  }
});

test('an invalid --sim-config for the built-in simulator is one line, exit 2', async () => {
  const output = join(dir, 'sim-bad.json');
  const run = await cli([
    'run',
    '--sim-config',
    file('bad-sim.json', '{"decode_step_ms": -1}'),
    '--requests',
    '2',
    '--output',
    output,
    '--quiet',
  ]);
  refusedWithOneLine(run, output, /bad-sim\.json: decode_step_ms: /);
});

test('a count warm-up that covers every planned request is refused before anything is sent', async (t) => {
  const trace = file(
    'two.jsonl',
    '{"timestamp": 0, "input_length": 64, "output_length": 2}\n{"timestamp": 5, "input_length": 64, "output_length": 2}\n',
  );
  const cases: { name: string; args: string[]; line: RegExp }[] = [
    {
      name: 'closed loop',
      args: ['--ctx-tokens', '256', '--requests', '4', '--warmup', '4'],
      line: /--warmup 4 excludes all 4 planned requests \(--requests 4\) from every figure, so nothing would be measured; lower --warmup or raise --requests$/,
    },
    {
      name: 'more warm-up than requests',
      args: ['--ctx-tokens', '256', '--requests', '3', '--warmup', '10'],
      line: /--warmup 10 excludes all 3 planned requests/,
    },
    {
      name: 'burst',
      args: ['--ctx-tokens', '256', '--burst', '3', '--warmup', '3'],
      line: /\(--burst 3\).*raise --burst$/,
    },
    {
      name: 'open loop',
      args: ['--ctx-tokens', '256', '--rate', '50', '--requests', '4', '--warmup', '4'],
      line: /--warmup 4 excludes all 4 planned arrivals/,
    },
    {
      name: 'trace',
      args: ['--trace', trace, '--warmup', '2'],
      line: /--warmup 2 excludes all 2 requests of the --trace file from every figure, so nothing would be measured; lower --warmup$/,
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const { run, proxy, output } = await runThroughProxy(['--max-tokens', '2', ...c.args]);
      refusedWithOneLine(run, output, c.line);
      assert.deepEqual(proxy.seen, [], 'no request at all');
    });
  }
});

test('a time warm-up that takes every request: the result is written, exit 1, one line says nothing was measured', async () => {
  const { run, output } = await runThroughProxy([
    '--ctx-tokens',
    '256',
    '--max-tokens',
    '2',
    '--requests',
    '3',
    '--warmup',
    '3600s',
  ]);
  assert.equal(run.code, 1, run.stderr);
  const errors = run.stderr.split('\n').filter((l) => l.startsWith('servebench run:'));
  assert.deepEqual(errors, [
    'servebench run: nothing was measured: all 3 requests sent fell within --warmup 3600s, which excludes them from every figure (the result has no rows); shorten --warmup or raise --requests',
  ]);
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    requests: number;
    servebench: { warmup_requests: number };
  };
  assert.equal(result.requests, 0);
  assert.equal(result.servebench.warmup_requests, 3);
});

test('a --ctx-tokens above the window is clamped with one warning saying to what', async () => {
  const { run } = await runThroughProxy([
    '--ctx-tokens',
    '8000',
    '--max-model-len',
    '4096',
    '--requests',
    '3',
    '--concurrency',
    '3',
    '--max-tokens',
    '4',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const mentions = run.stderr.split('\n').filter((l) => /clamp/.test(l));
  assert.deepEqual(mentions, [
    'warning: --ctx-tokens 8000 does not fit the window: every prompt was clamped to 3068 tokens (--max-model-len 4096 − --max-tokens 4 − --margin 1024)',
  ]);
});

test("the clamp warning names the server's window when it comes from /models", async () => {
  const { run } = await runThroughProxy([
    '--ctx-tokens',
    '9000',
    '--requests',
    '2',
    '--concurrency',
    '2',
    '--max-tokens',
    '4',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const mentions = run.stderr.split('\n').filter((l) => /clamp/.test(l));
  assert.deepEqual(mentions, [
    "warning: --ctx-tokens 9000 does not fit the window: every prompt was clamped to 7164 tokens (the server's window 8192 − --max-tokens 4 − --margin 1024)",
  ]);
});

test('--dry-run refuses the same plans offline: a count warm-up covering every request, and prompts too small at chars:R', async () => {
  const warm = await cli(['run', '--dry-run', '--requests', '5', '--warmup', '5']);
  assert.equal(warm.code, 2, warm.stderr);
  assert.match(
    warm.stderr,
    /^servebench run: --warmup 5 excludes all 5 planned requests \(--requests 5\) from every figure/,
  );
  const small = await cli([
    'run',
    '--dry-run',
    '--tokenizer',
    'chars:3.0',
    '--max-model-len',
    '1090',
    '--requests',
    '5',
  ]);
  assert.equal(small.code, 2, small.stderr);
  assert.equal(small.stderr.trim().split('\n').length, 1);
  assert.match(
    small.stderr,
    /no planned prompt can be built: the window leaves 2 tokens per prompt \(--max-model-len 1090 − --max-tokens 64 − --margin 1024\), less than the prompt envelope alone \(tail line, no body: 16 tokens at 3\.0 characters per token\)/,
  );
  // A counting tokenizer's envelope is only known once it has counted: its dry run still prints the plan.
  const counting = await cli(['run', '--dry-run', '--max-model-len', '1090', '--requests', '5']);
  assert.equal(counting.code, 0, counting.stderr);
});
