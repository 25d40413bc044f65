/**
 * Prompt sizing against the simulator on a real socket, through the CLI: prompts land on their planned
 * context as the server counts it; mismatched tokenizers and early stops are reported.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';
import { forwardRequest } from '../helpers/servers.js';

let sim: SimHandle;
let shortOutputs: SimHandle;
let proxy: Server;
let proxyUrl: string;
const dir = mkdtempSync(join(tmpdir(), 'servebench-calibration-'));

type Row = {
  request_index: number;
  planned_context_tokens: number;
  prompt_tokens: number;
  finish_reason: string;
  output_tokens: number;
  expected_prompt_tokens: number | null;
};
type Result = {
  request_timings: Row[];
  servebench: Record<string, any>;
  cache_policy: string;
  prompt_set_id: string;
  context_distribution: Record<string, number>;
};

before(async () => {
  sim = await startSim({ prefill_tok_s: 400000, decode_step_ms: 1, max_num_seqs: 32 });
  shortOutputs = await startSim({
    prefill_tok_s: 400000,
    decode_step_ms: 1,
    output_tokens: { kind: 'fixed', tokens: 3 },
  });
  // A server without a tokenize endpoint: forwards /v1/* except tokenize to the simulator, 404 otherwise.
  const target = new URL(sim.url);
  proxy = createServer((req, res) => {
    if (!req.url?.startsWith('/v1/') || req.url.includes('tokenize')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    forwardRequest(target, req, res);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
});

after(async () => {
  await sim.close();
  await shortOutputs.close();
  await new Promise((resolve) => proxy.close(resolve));
});

async function run(name: string, args: string[]): Promise<{ result: Result; stderr: string }> {
  const output = join(dir, `${name}.json`);
  const cli = await runCli(['run', '--output', output, '--quiet', '--max-tokens', '4', ...args]);
  assert.equal(cli.code, 0, cli.stderr);
  return { result: JSON.parse(readFileSync(output, 'utf8')) as Result, stderr: cli.stderr };
}

function assertWithinTolerance(result: Result): void {
  assert.ok(result.request_timings.length > 0);
  for (const row of result.request_timings) {
    const tolerance = Math.max(0.01 * row.planned_context_tokens, 8);
    assert.ok(
      Math.abs(row.prompt_tokens - row.planned_context_tokens) <= tolerance,
      `request ${row.request_index}: server counted ${row.prompt_tokens}, planned ${row.planned_context_tokens}`,
    );
  }
  assert.equal(result.servebench['calibration'].requests_outside_tolerance, 0);
}

test('server mode with /tokenize: every request lands on its planned context, for every prefix policy', async () => {
  for (const [name, extra] of [
    ['shared', ['--ctx-tokens', '777']],
    ['unique', ['--ctx-tokens', '5000', '--prefix', 'unique']],
    ['none', ['--ctx-tokens', '200', '--prefix', 'none', '--cache-bust']],
    ['buckets', ['--context-buckets', '300:0.5,2000:1.0', '--shared-prefix-tokens', '100']],
  ] as const) {
    const { result } = await run(`server-${name}`, [
      '--base-url',
      sim.url,
      '--requests',
      '6',
      '--concurrency',
      '3',
      ...extra,
    ]);
    assertWithinTolerance(result);
    assert.match(result.servebench['sizing'].method, /^server:\/tokenize/);
  }
});

test('server mode without a tokenize endpoint calibrates from usage probes and still lands within tolerance', async () => {
  const { result } = await run('probes', [
    '--base-url',
    proxyUrl,
    '--model',
    sim.config.model,
    '--requests',
    '5',
    '--ctx-tokens',
    '1500',
  ]);
  assertWithinTolerance(result);
  assert.equal(result.servebench['sizing'].method, 'server:usage-probes');
  assert.ok(
    result.servebench['sizing'].probes >= 1 && result.servebench['sizing'].probes <= 12,
    `probes ${result.servebench['sizing'].probes}`,
  );
});

test('chars:3.0 keeps the reference bytes: not calibrated, and the server count differs from the plan', async () => {
  const { result } = await run('chars', [
    '--base-url',
    sim.url,
    '--requests',
    '2',
    '--ctx-tokens',
    '4096',
    '--tokenizer',
    'chars:3.0',
  ]);
  assert.equal(result.servebench['calibration'].enforced, false);
  assert.equal(result.servebench['prompt_method'], 'chars:3.0');
  assert.notEqual(result.request_timings[0]!.prompt_tokens, 4096);
});

test('a local tokenizer that does not match the server is caught and reported', async () => {
  const { result, stderr } = await run('tiktoken', [
    '--base-url',
    sim.url,
    '--requests',
    '3',
    '--ctx-tokens',
    '3000',
    '--tokenizer',
    'tiktoken:o200k_base',
  ]);
  const calibration = result.servebench['calibration'];
  assert.ok(calibration.requests_outside_tolerance > 0, 'o200k counts code differently from the simulator');
  assert.match(stderr, /warning: \d+ of 3 requests missed their planned context/);
  // expected_prompt_tokens says what the local tokenizer promised.
  for (const row of result.request_timings) assert.ok(Math.abs(row.expected_prompt_tokens! - 3000) <= 30);
});

test('early stops are reported; --ignore-eos makes every output run to max_tokens', async () => {
  const early = await run('early', [
    '--base-url',
    shortOutputs.url,
    '--requests',
    '4',
    '--ctx-tokens',
    '256',
    '--max-tokens',
    '16',
  ]);
  assert.ok(early.result.request_timings.every((r) => r.finish_reason === 'stop' && r.output_tokens === 3));
  assert.match(early.stderr, /4 of 4 completed requests stopped before their max_tokens/);
  const full = await run('ignore-eos', [
    '--base-url',
    shortOutputs.url,
    '--requests',
    '4',
    '--ctx-tokens',
    '256',
    '--max-tokens',
    '16',
    '--ignore-eos',
  ]);
  assert.ok(full.result.request_timings.every((r) => r.finish_reason === 'length' && r.output_tokens === 16));
  assert.equal(full.result.servebench['warnings'].length, 0);
  const min = await run('min-tokens', [
    '--base-url',
    shortOutputs.url,
    '--requests',
    '2',
    '--ctx-tokens',
    '256',
    '--max-tokens',
    '16',
    '--min-tokens',
    '10',
  ]);
  assert.ok(min.result.request_timings.every((r) => r.output_tokens >= 10));
});

test('a dataset run sends the rows as given, with per-row max_tokens, seeded', async () => {
  const file = join(dir, 'prompts.jsonl');
  writeFileSync(
    file,
    [
      '{"prompt": "Explain KV caches in one line.", "max_tokens": 3}',
      '{"messages": [{"role": "system", "content": "terse"}, {"role": "user", "content": "What is prefill?"}]}',
      '{"prompt": "Name three GPUs."}',
    ].join('\n'),
  );
  const a = await run('dataset-a', ['--base-url', sim.url, '--dataset', file, '--requests', '5', '--seed', '3']);
  const b = await run('dataset-b', ['--base-url', sim.url, '--dataset', file, '--requests', '5', '--seed', '3']);
  assert.equal(a.result.prompt_set_id, b.result.prompt_set_id);
  assert.equal(a.result.cache_policy, 'prefix=dataset;cache-bust=off');
  assert.equal(a.result.servebench['context_source'], 'dataset');
  // With a counting tokenizer the plan for a dataset row is what the server will count.
  for (const row of a.result.request_timings) assert.equal(row.prompt_tokens, row.planned_context_tokens);
  assert.ok(a.result.request_timings.some((r) => r.output_tokens === 3));
});

test('an estimated prompt the server counts outside the tolerance is caught by the calibration check', async () => {
  // Forwards everything to the simulator, but pads request 101's prompt on its way: sized by the
  // sampling sizer's stand-in (occurrence 101 of its target is neither exact nor in the sample),
  // it is never counted before the run, so only the check after the run can see it.
  const target = new URL(sim.url);
  const padding = ' and 0123456789 more words here that nobody planned for'.repeat(2);
  const padder = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.method === 'POST' && req.url?.endsWith('/chat/completions')) {
        const json = JSON.parse(body.toString('utf8')) as { messages: { content: string }[] };
        const message = json.messages[0]!;
        if (message.content.includes('# request 101: ')) message.content = `${message.content}${padding}`;
        body = Buffer.from(JSON.stringify(json));
      }
      const headers = { ...req.headers, 'content-length': String(body.length) };
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => padder.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(padder.address() as AddressInfo).port}/v1`;
    const { result, stderr } = await run('estimated-off', [
      '--base-url',
      url,
      '--requests',
      '120',
      '--concurrency',
      '8',
      '--ctx-tokens',
      '300',
    ]);
    const sizing = result.servebench['sizing'];
    assert.equal(sizing.strategy, 'sampled');
    assert.equal(sizing.prompts_counted + sizing.prompts_verified + sizing.prompts_estimated, 120);
    assert.ok(sizing.prompts_estimated > 0);
    const calibration = result.servebench['calibration'];
    assert.equal(calibration.requests_outside_tolerance, 1);
    const row = result.request_timings.find((r) => r.request_index === 101)!;
    assert.ok(
      row.prompt_tokens - row.planned_context_tokens > 8,
      `request 101: ${row.prompt_tokens} for ${row.planned_context_tokens}`,
    );
    assert.match(stderr, /warning: 1 of 120 requests missed their planned context/);
  } finally {
    await new Promise((resolve) => padder.close(resolve));
  }
});
