/**
 * `--tokenizer server` against the built-in simulator: its `/tokenize` (messages, like vLLM), a
 * llama.cpp-style `/tokenize` (raw `content` only, template overhead from one probe), and no
 * tokenize endpoint at all (usage probes). Every sized prompt is then sent for real and the
 * server's usage.prompt_tokens is compared with the plan.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { createDispatcher } from '../../src/client/transport.js';
import { streamChatCompletion } from '../../src/client/stream.js';
import { chatRequestBody } from '../../src/workload/request-body.js';
import { resolveThinking } from '../../src/workload/thinking.js';
import { fill, promptTail } from '../../src/workload/prompt.js';
import { createCountingSizer, toleranceTokens, TokenizerCalibrationError } from '../../src/workload/tokenizer/index.js';
import { createPromptCounter } from '../../src/target/token-counter.js';
import type { CounterContext } from '../../src/target/server-context.js';

const MODEL = 'servebench-sim';
const thinking = resolveThinking({ thinkingMode: undefined, noThinking: false, reasoningEffort: undefined });
const dispatcher = createDispatcher({ connections: 8, idleTimeoutS: 60 });
let sim: SimHandle;

before(async () => {
  sim = await startSim({ port: 0, prefill_tok_s: 10_000_000, decode_step_ms: 1, max_model_len: 131_072 });
});
after(async () => {
  await dispatcher.close();
  await sim.close();
});

function ctxFor(baseUrl: string): CounterContext {
  return {
    dispatcher,
    baseUrl,
    model: MODEL,
    headers: {},
    runStartNs: process.hrtime.bigint(),
    thinking,
    timeoutS: 60,
  };
}

const CONVERSATION = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: `${fill(3000, 1)}${promptTail(1)}` },
  { role: 'assistant', content: 'def helper_1(): ok' },
  { role: 'user', content: 'again, shorter' },
];

/** usage.prompt_tokens of a real streamed chat request carrying `text` (one user message) or `messages`. */
async function serverCount(baseUrl: string, text: string | typeof CONVERSATION): Promise<number> {
  const body =
    typeof text === 'string'
      ? chatRequestBody(MODEL, text, 4, thinking)
      : JSON.stringify({
          model: MODEL,
          messages: text,
          max_tokens: 4,
          temperature: 0.0,
          stream: true,
          stream_options: { include_usage: true },
        });
  const result = await streamChatCompletion({
    dispatcher,
    url: `${baseUrl}/chat/completions`,
    headers: {},
    body,
    requestIndex: 0,
    plannedContextTokens: 0,
    runStartNs: process.hrtime.bigint(),
    idleTimeoutS: 60,
  });
  assert.ok(result.ok, `request failed: ${JSON.stringify(result.error)}`);
  const n = result.usage?.['prompt_tokens'];
  assert.equal(typeof n, 'number');
  return n as number;
}

type Override = (req: IncomingMessage, body: Buffer, res: ServerResponse) => boolean;

/** A pass-through proxy to the simulator; `override` may answer a request itself (returns true). */
async function startProxy(
  override: Override,
  upstreamSim: SimHandle = sim,
): Promise<{ url: string; close: () => Promise<void>; seen: string[]; statuses: number[] }> {
  const target = new URL(upstreamSim.url);
  const seen: string[] = [];
  const statuses: number[] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      seen.push(`${req.method ?? ''} ${req.url ?? ''}`);
      if (override(req, body, res)) return;
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
        },
        (answer) => {
          statuses.push(answer.statusCode ?? 502);
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    seen,
    statuses,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function notFound(res: ServerResponse): true {
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"error":{"message":"not found"}}');
  return true;
}

/** Sizes every (index, target) with `sizer`, sends each prompt for real, returns the table. */
async function sizeAndSend(
  baseUrl: string,
  sizer: ReturnType<typeof createCountingSizer>,
  plan: readonly (readonly [number, number])[],
): Promise<{ index: number; target: number; expected: number; actual: number }[]> {
  const skeleton = { render: (index: number, chars: number) => `${fill(chars, index)}${promptTail(index)}` };
  const rows: { index: number; target: number; expected: number; actual: number }[] = [];
  for (const [index, target] of plan) {
    const sized = await sizer.size(index, target, skeleton, null);
    assert.ok(sized.bodyChars !== null && sized.expectedTokens !== null);
    const actual = await serverCount(baseUrl, skeleton.render(index, sized.bodyChars));
    rows.push({ index, target, expected: sized.expectedTokens, actual });
  }
  return rows;
}

const PLAN: readonly (readonly [number, number])[] = [
  [0, 128],
  [1, 128],
  [2, 1000],
  [3, 4096],
  [4, 4096],
  [5, 32768],
  [6, 32768],
  [7, 32768],
  [8, 256],
];

test("server: the simulator's /tokenize is found and counts exactly what the server's usage reports", async () => {
  const { counter, info } = await createPromptCounter('server', ctxFor(sim.url));
  assert.equal(info.method, 'server:/tokenize(messages)');
  assert.equal(info.tokenizeUrl, `${new URL(sim.url).origin}/tokenize`);
  assert.equal(info.overheadTokens, 0, 'the verification probe agrees with the endpoint');
  assert.equal(info.probes, 1);
  for (const text of ['hi', `${fill(20_000, 9)}${promptTail(9)}`, 'Hello, wonderful 2024! ünïcödé 漢字 🙂']) {
    assert.equal(await counter.count(text), await serverCount(sim.url, text));
  }
  assert.ok(counter.countMessages !== null);
  assert.equal(await counter.countMessages(CONVERSATION), await serverCount(sim.url, CONVERSATION));
  assert.equal(counter.info().probes, 1, 'a messages endpoint counts conversations without probing');
  const rows = await sizeAndSend(sim.url, createCountingSizer(counter), PLAN);
  for (const r of rows) {
    assert.equal(r.actual, r.expected, `request ${r.index}: the server counted what the sizer expected`);
    assert.ok(Math.abs(r.actual - r.target) <= 2, `request ${r.index}: ${r.actual} vs ${r.target}`);
  }
});

test('server: a llama.cpp-style /tokenize (raw content, no template) plus one overhead probe is exact', async () => {
  // llama.cpp answers {"tokens": [...]} to {"content"} and {"tokens": []} to any other body.
  const proxy = await startProxy((req, body, res) => {
    if (!req.url?.startsWith('/tokenize')) return req.url?.startsWith('/v1/tokenize') ? notFound(res) : false;
    const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    if (typeof parsed['content'] !== 'string') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"tokens":[]}');
      return true;
    }
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: sim.port,
        method: 'POST',
        path: '/tokenize',
        headers: { 'content-type': 'application/json' },
      },
      (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (p: Buffer) => parts.push(p));
        answer.on('end', () => {
          const tokens = (JSON.parse(Buffer.concat(parts).toString('utf8')) as { tokens: number[] }).tokens;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ tokens }));
        });
      },
    );
    upstream.end(JSON.stringify({ content: parsed['content'] }));
    return true;
  });
  try {
    const { counter, info } = await createPromptCounter('server', ctxFor(proxy.url));
    assert.equal(info.method, 'server:/tokenize(content)+overhead');
    assert.equal(info.overheadSource, 'probe');
    assert.equal(info.overheadTokens, 6, "the simulator's template: 4 per message + 2");
    assert.equal(info.probes, 1);
    const rows = await sizeAndSend(proxy.url, createCountingSizer(counter), PLAN.slice(0, 6));
    for (const r of rows) assert.equal(r.actual, r.expected);
    // Conversations: raw contents + overhead + one lazily measured per-message overhead (one more probe).
    assert.ok(counter.countMessages !== null);
    assert.equal(await counter.countMessages(CONVERSATION), await serverCount(proxy.url, CONVERSATION));
    assert.equal(
      await counter.countMessages(CONVERSATION.slice(0, 2)),
      await serverCount(proxy.url, CONVERSATION.slice(0, 2)),
    );
    assert.equal(counter.info().probes, 2);
  } finally {
    await proxy.close();
  }
});

test('server without a tokenize endpoint: usage probes, a bounded number per planned size, every request within tolerance', async () => {
  const proxy = await startProxy((req, _body, res) => (req.url?.includes('tokenize') === true ? notFound(res) : false));
  try {
    const { counter, info } = await createPromptCounter('server', ctxFor(proxy.url));
    assert.equal(info.method, 'server:usage-probes');
    assert.equal(counter.costly, true);
    assert.equal(counter.countMessages, null);
    assert.ok(info.warnings.some((w) => w.includes('no tokenize endpoint')));
    const sizer = createCountingSizer(counter);
    const rows = await sizeAndSend(proxy.url, sizer, PLAN);
    const stats = sizer.stats();
    const probes = counter.info().probes;
    const lines = ['usage probes: index target expected actual error tolerance'];
    for (const r of rows) {
      lines.push(
        `  ${r.index} ${r.target} ${r.expected} ${r.actual} ${r.actual - r.target} ±${toleranceTokens(r.target)}`,
      );
      assert.ok(
        Math.abs(r.actual - r.target) <= toleranceTokens(r.target),
        `request ${r.index}: the server counted ${r.actual} for ${r.target}`,
      );
    }
    lines.push(
      `  probes: ${probes} (1 initial + per fit target/index:probes ${stats.fits.map((f) => `${f.target}/${f.index}:${f.probes}`).join(', ')}); estimated prompts: ${stats.estimated}`,
    );
    console.log(lines.join('\n'));
    const distinct = new Set(PLAN.map(([, t]) => t)).size;
    assert.ok(stats.fits.length >= distinct, 'at least one fit per distinct planned size');
    assert.ok(stats.fits.length < PLAN.length, 'some requests reuse a fit');
    assert.equal(stats.estimated, PLAN.length - stats.fits.length, 'requests without a fit of their own send no probe');
    assert.equal(probes, 1 + stats.fits.reduce((sum, f) => sum + f.probes, 0), 'every probe is accounted for');
    assert.ok(
      stats.fits.every((f) => f.probes <= 4),
      `probes per fit: ${stats.fits.map((f) => f.probes).join(', ')}`,
    );
    assert.equal(stats.unverified, 0);
  } finally {
    await proxy.close();
  }
});

test('usage probes: a first guess beyond the window (HTTP 400) is stepped back from', async () => {
  const small = await startSim({ port: 0, prefill_tok_s: 10_000_000, decode_step_ms: 1, max_model_len: 5000 });
  const proxy = await startProxy(
    (req, _body, res) => (req.url?.includes('tokenize') === true ? notFound(res) : false),
    small,
  );
  try {
    // Long letter runs are 5 chars per token in the simulator: the sample's slope makes the first
    // guess for the code-like filler far too long (past the 5000-token window): HTTP 400.
    const { counter } = await createPromptCounter('server', {
      ...ctxFor(proxy.url),
      sampleText: 'abcdefghij'.repeat(40),
    });
    const sizer = createCountingSizer(counter);
    const sized = await sizer.size(0, 4000, { render: (i, c) => `${fill(c, i)}${promptTail(i)}` }, null);
    assert.ok(sized.expectedTokens !== null && Math.abs(sized.expectedTokens - 4000) <= toleranceTokens(4000));
    assert.ok(sizer.stats().fits[0]!.probes <= 8, `${sizer.stats().fits[0]!.probes} probes`);
    assert.ok(proxy.statuses.includes(400), `statuses: ${proxy.statuses.join(',')}`);
  } finally {
    await proxy.close();
    await small.close();
  }
});

test('hf/tiktoken with a reachable server measure the template overhead with one probe', async () => {
  const { info } = await createPromptCounter('tiktoken:cl100k_base', ctxFor(sim.url));
  assert.equal(info.probes, 1);
  assert.equal(info.overheadSource, 'probe');
  assert.equal(info.method, 'tiktoken:cl100k_base+overhead');
  assert.equal(typeof info.overheadTokens, 'number');
});

test('server mode fails with one line when it can neither tokenize nor read usage', async () => {
  await assert.rejects(
    createPromptCounter('server', {}),
    (error: unknown) => error instanceof TokenizerCalibrationError && !error.message.includes('\n'),
  );
  const proxy = await startProxy((req, _body, res) => {
    if (req.url?.includes('tokenize') === true) return notFound(res);
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"boom"}}');
    return true;
  });
  try {
    await assert.rejects(createPromptCounter('server', ctxFor(proxy.url)), (error: unknown) => {
      assert.ok(error instanceof TokenizerCalibrationError);
      assert.ok(!error.message.includes('\n'), error.message);
      assert.match(error.message, /no tokenize endpoint .*HTTP Error 500.*--tokenizer hf:PATH/);
      return true;
    });
  } finally {
    await proxy.close();
  }
});
