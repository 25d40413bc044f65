import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, symlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags } from '../../src/cli/parse.js';
import { RUN_FLAGS } from '../../src/cli/options.js';
import { resolveRunConfig } from '../../src/config/run-config.js';
import { UsageError, InputFileError } from '../../src/util/errors.js';

const cwd = mkdtempSync(join(tmpdir(), 'servebench-config-'));
const resolveArgs = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  resolveRunConfig(parseFlags(args, RUN_FLAGS).values, env, cwd);

test('defaults follow the reference (docs/protocol.md#run-flags-and-defaults)', () => {
  const config = resolveArgs([]);
  assert.equal(config.load.requests, 60);
  assert.equal(config.load.concurrency, 20);
  assert.equal(config.workload.sharedPrefixTokens, 8000);
  assert.equal(config.workload.ctxTokens, 0);
  assert.equal(config.workload.maxTokens, 64);
  assert.equal(config.workload.margin, 1024);
  assert.equal(config.client.timeoutS, 900);
  assert.equal(config.target.baseUrl, null);
  assert.equal(config.workload.thinking.mode, 'default');
});

test('--burst sets requests and concurrency', () => {
  const config = resolveArgs(['--burst', '12', '--requests', '99', '--concurrency', '3']);
  assert.equal(config.load.requests, 12);
  assert.equal(config.load.concurrency, 12);
});

const rejects: [string[], RegExp][] = [
  [['--requests', '0'], /--requests: 0 is out of range/],
  [['--requests', 'ten'], /--requests: expected an integer, got 'ten'/],
  [['--concurrency', '100001'], /--concurrency: 100001 is out of range/],
  [['--rate', '5', '--burst', '3'], /--burst is a closed-loop mode/],
  [['--max-concurrency', '4'], /--max-concurrency caps an open loop/],
  [['--warmup', '3x'], /--warmup: expected a request count/],
  [['--trace', 't.jsonl', '--ctx-tokens', '64'], /--trace brings its own context sizes/],
  [['--rate', '0'], /--rate: 0 is out of range/],
  [['--arrival', 'weibull'], /--arrival: expected one of constant, poisson, gamma/],
  [['--timeout', '0'], /--timeout: 0 is out of range/],
  [['--timeout', 'nan'], /--timeout: expected a number/],
  [['--ctx-tokens', '31'], /--ctx-tokens must be 0 \(sampled\) or at least 32/],
  [['--thinking-mode', 'maybe'], /--thinking-mode: expected one of default, enabled, disabled, unsupported/],
  [['--no-thinking', '--reasoning-effort', 'low'], /cannot be combined/],
  [['--thinking-mode', 'enabled', '--reasoning-effort', 'low'], /cannot be combined/],
  [['--base-url', 'http://localhost:8000/v1'], /use 127\.0\.0\.1/],
  [['--base-url', 'http://user:pw@127.0.0.1:8000/v1'], /credentials in the URL are not allowed/],
  [['--base-url', 'http://127.0.0.1:8000/v1?key=abc'], /a query string is not allowed/],
  [['--base-url', 'ftp://127.0.0.1/v1'], /scheme must be http or https/],
  [['--base-url', 'not a url'], /not an absolute URL/],
  [['--max-model-len', '1000', '--max-tokens', '64', '--margin', '1024'], /must exceed --max-tokens plus --margin/],
  [['--model', 'gpt-oss-120b', '--reasoning-effort', 'max'], /not accepted by gpt-oss/],
  [['--model', 'gpt-oss-20b', '--thinking-mode', 'enabled'], /gpt-oss models do not take chat-template/],
  [['--model', 'qwen3-32b', '--reasoning-effort', 'low'], /not accepted by qwen/],
  [['--model', 'DeepSeek-V4-Flash', '--reasoning-effort', 'medium'], /not accepted by deepseek-v4/],
  [['--api-key-env', 'SERVEBENCH_TEST_MISSING_KEY'], /SERVEBENCH_TEST_MISSING_KEY is unset or empty/],
  [['--manifest', 'm.toml'], /--manifest needs --tier/],
  [['--tier', 'fast'], /--tier needs --manifest/],
  [['--bogus'], /Unknown option '--bogus'/],
];

for (const [args, message] of rejects) {
  test(`rejects ${args.join(' ')}`, () => {
    assert.throws(
      () => resolveArgs(args),
      (error: unknown) => {
        assert.ok(error instanceof UsageError, `expected UsageError, got ${String(error)}`);
        assert.match(error.message, message);
        assert.ok(!error.message.includes('\n'), 'one line');
        return true;
      },
    );
  });
}

/** As the CLI resolves: with the set of flags actually typed (defaults are not "given"). */
const resolveTyped = (args: string[]) => {
  const parsed = parseFlags(args, RUN_FLAGS);
  return resolveRunConfig(parsed.values, {}, cwd, parsed.given);
};

const ignoredByLoad: [string[], RegExp][] = [
  [
    ['--rate', '5', '--concurrency', '8'],
    /^--concurrency sets a closed loop's workers; with --rate use --max-concurrency N to cap the requests in flight$/,
  ],
  [
    ['--trace', 't.jsonl', '--concurrency', '8'],
    /^--concurrency sets a closed loop's workers; with --trace use --max-concurrency N/,
  ],
  [['--arrival', 'constant'], /^--arrival shapes open-loop arrivals; it needs --rate$/],
  [['--trace', 't.jsonl', '--burstiness', '0.5'], /^--burstiness shapes open-loop arrivals; it needs --rate$/],
  [['--rate', '5', '--burstiness', '0.5'], /^--burstiness is the shape of gamma arrivals; it needs --arrival gamma$/],
  [
    ['--trace', 't.jsonl', '--requests', '10'],
    /^--requests does not apply to --trace: every line of the trace is one request$/,
  ],
];

for (const [args, message] of ignoredByLoad) {
  test(`a flag the load model would ignore is refused: ${args.join(' ')}`, () => {
    assert.throws(
      () => resolveTyped(args),
      (error: unknown) => error instanceof UsageError && message.test(error.message),
    );
  });
}

test('the load flags that do apply are accepted', () => {
  const open = resolveTyped([
    '--rate',
    '5',
    '--max-concurrency',
    '8',
    '--arrival',
    'gamma',
    '--burstiness',
    '0.5',
    '--requests',
    '10',
  ]);
  assert.deepEqual(open.load, {
    kind: 'open',
    rate: 5,
    arrival: 'gamma',
    burstiness: 0.5,
    maxConcurrency: 8,
    rampS: 0,
    durationS: null,
    requests: 10,
    concurrency: 20,
    burst: 0,
    requestsGiven: true,
    warmup: null,
    onInterrupt: 'drain',
  });
  assert.equal(resolveTyped(['--concurrency', '8', '--requests', '10']).load.kind, 'closed');
  // Input files are read while the configuration is resolved: the trace must exist.
  writeFileSync(join(cwd, 't.jsonl'), '{"timestamp": 0, "input_length": 100, "output_length": 10}\n');
  assert.equal(resolveTyped(['--trace', 't.jsonl', '--max-concurrency', '4']).load.kind, 'trace');
});

test('family rules accept allowed efforts', () => {
  assert.equal(
    resolveArgs(['--model', 'qwen3.8-35b', '--reasoning-effort', 'xhigh']).workload.thinking.reasoningEffort,
    'xhigh',
  );
  assert.equal(
    resolveArgs(['--model', 'glm-5', '--reasoning-effort', 'low']).workload.thinking.mechanism,
    'reasoning_effort',
  );
});

test('a whitespace-only API key is refused; a set key is accepted and not stored', () => {
  assert.throws(() => resolveArgs(['--api-key-env', 'K'], { K: ' \r\n' }), /unset or empty/);
  const config = resolveArgs(['--api-key-env', 'K'], { K: 'sk-secret-value' });
  assert.equal(config.target.apiKeyEnv, 'K');
  assert.ok(!JSON.stringify(config).includes('sk-secret-value'));
});

test('--output refuses a symlink, a directory, and a missing parent', () => {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-out-'));
  writeFileSync(join(dir, 'real.json'), '{}');
  symlinkSync(join(dir, 'real.json'), join(dir, 'link.json'));
  mkdirSync(join(dir, 'adir'));
  assert.throws(() => resolveArgs(['--output', join(dir, 'link.json')]), /symbolic link/);
  assert.throws(() => resolveArgs(['--output', join(dir, 'adir')]), /not a regular file/);
  assert.throws(
    () => resolveArgs(['--output', join(dir, 'missing', 'r.json')]),
    /: --output \S+: parent directory \S+missing does not exist$/,
  );
  assert.equal(resolveArgs(['--output', join(dir, 'new.json')]).output.result, join(dir, 'new.json'));
});

test('a manifest tier fills the target; flags win; source_recipe is manifest#tier', () => {
  const file = join(cwd, 'serves.toml');
  writeFileSync(
    file,
    '[tiers.fast]\nport = 8001\nmodel = "m-fast"\nengine = "vllm"\ngpu_role = "rtx"\n\n[[tier]]\nname = "heavy"\nbase_url = "http://127.0.0.1:9000/v1"\nmodel = "m-heavy"\n',
  );
  const fast = resolveArgs(['--manifest', 'serves.toml', '--tier', 'fast']);
  assert.equal(fast.target.baseUrl, 'http://127.0.0.1:8001/v1');
  assert.equal(fast.target.model, 'm-fast');
  assert.equal(fast.target.engine, 'vllm');
  assert.equal(fast.target.gpu, 'rtx');
  assert.equal(fast.target.sourceRecipe, 'serves.toml#fast');
  const heavy = resolveArgs(['--manifest', 'serves.toml', '--tier', 'heavy', '--engine', 'sglang']);
  assert.equal(heavy.target.baseUrl, 'http://127.0.0.1:9000/v1');
  assert.equal(heavy.target.engine, 'sglang');
  assert.throws(
    () => resolveArgs(['--manifest', 'serves.toml', '--tier', 'none']),
    /'none' is not in .*serves\.toml \(tiers: fast, heavy\)/,
  );
  writeFileSync(join(cwd, 'bad.toml'), '[tiers.x\nport=1');
  assert.throws(
    () => resolveArgs(['--manifest', 'bad.toml', '--tier', 'x']),
    (e: unknown) => e instanceof InputFileError && /not valid TOML/.test(e.message),
  );
});
