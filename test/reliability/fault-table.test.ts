/**
 * Every row of docs/reliability.md's fault table, sent to a real simulator over a real socket: the
 * record must be exactly what the row says (error_type, message pattern, http_status, excerpt),
 * and no form of the request's API key may appear anywhere in it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { createDispatcher, streamChatCompletion } from '../../src/client/index.js';
import { startSim, type SimHandle } from '../../src/sim/server.js';
import { FAULT_CASES, caseFlags, type FaultCase } from '../helpers/faults-catalog.js';
import { renderReliabilityMarkdown } from '../../scripts/docs/reliability.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { leakedForms, PLANTED_KEY } from '../helpers/secrets.js';

let sim: SimHandle;
let refusedUrl: string;

before(async () => {
  sim = await startSim({ decode_step_ms: 3, prefill_tok_s: 1e6 });
  // Connection refused: a simulator that was listening and closed its port.
  const gone = await startSim({});
  refusedUrl = gone.url;
  await gone.close();
});
after(async () => {
  await sim.close();
});

const BODY = JSON.stringify({
  model: 'servebench-sim',
  messages: [{ role: 'user', content: 'tell me about faults' }],
  max_tokens: 6,
  stream: true,
  stream_options: { include_usage: true },
});

/**
 * Sends a case on a connection of its own: a keep-alive socket that first carried one plain
 * request, or (`newConnection`) a new one; so what the socket had done never depends on the rows before.
 */
async function send(c: FaultCase) {
  const dispatcher = createDispatcher({ connections: 1, idleTimeoutS: 30 });
  try {
    if (c.client.newConnection !== true) {
      const plain = await streamChatCompletion({
        dispatcher,
        url: `${sim.url}/chat/completions`,
        headers: { 'content-type': 'application/json' },
        body: BODY,
        requestIndex: 0,
        plannedContextTokens: 100,
        runStartNs: process.hrtime.bigint(),
        idleTimeoutS: 30,
      });
      assert.equal(plain.ok, true, 'the request that opens the keep-alive socket');
    }
    return await sendOn(dispatcher, c);
  } finally {
    await dispatcher.close();
  }
}

async function sendOn(dispatcher: Dispatcher, c: FaultCase) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    authorization: `Bearer ${PLANTED_KEY}`,
  };
  if (c.fault !== 'refused') headers['x-sim-fault'] = c.fault;
  const started = process.hrtime.bigint();
  const result = await streamChatCompletion({
    dispatcher,
    url: `${c.fault === 'refused' ? refusedUrl : sim.url}/chat/completions`,
    headers,
    body: BODY,
    requestIndex: 7,
    plannedContextTokens: 100,
    runStartNs: started,
    idleTimeoutS: c.client.idleTimeoutS ?? 30,
    requestTimeoutS: c.client.requestTimeoutS ?? null,
    ...(c.client.maxLineBytes !== undefined ? { maxLineBytes: c.client.maxLineBytes } : {}),
    ...(c.client.maxResponseBytes !== undefined ? { maxResponseBytes: c.client.maxResponseBytes } : {}),
    ...(c.client.retries !== undefined ? { retry: { retries: c.client.retries, maxWaitS: 1 } } : {}),
  });
  return { result, elapsedS: Number(process.hrtime.bigint() - started) / 1e9 };
}

// Rows run side by side: each has its own connection, and the slowest wait out a 1 s timeout.
describe('fault table: every row is what the client records', { concurrency: 8 }, () => {
  for (const c of FAULT_CASES) {
    const e = c.expect;
    const flags = [caseFlags(c.client), c.client.newConnection === true ? 'new connection' : '']
      .filter((f) => f !== '')
      .join(', ');
    it(`${c.fault}${flags === '' ? '' : ` (${flags})`} → ${e.errorType ?? 'completed'}`, async () => {
      const { result, elapsedS } = await send(c);
      const text = JSON.stringify(result);
      assert.deepEqual(leakedForms(text, PLANTED_KEY), [], 'the API key leaked into the record');
      if (e.outcome === 'completed') {
        assert.equal(result.ok, true, text);
        assert.equal(result.error, null);
        assert.ok(result.contentChunks > 0 && result.ttftS !== null && result.e2eS !== null);
        if (e.noUsage === true) assert.equal(result.usage, null);
        else assert.notEqual(result.usage, null);
        return;
      }
      assert.equal(result.ok, false, text);
      const error = result.error!;
      assert.equal(error.type, e.errorType, text);
      assert.match(error.message, new RegExp(`^${e.message}$`), text);
      assert.equal(error.httpStatus, e.httpStatus, text);
      assert.equal(error.bodyExcerpt !== null, e.excerpt, text);
      if (error.bodyExcerpt !== null) assert.ok(error.bodyExcerpt.length <= 2048);
      assert.ok(
        error.atS >= 0 && error.atS <= elapsedS + 1e-6,
        `error_at ${error.atS} within the request's ${elapsedS} s`,
      );
      assert.equal(result.connectionRetries ?? 0, e.connectionRetries ?? 0, text);
      const resent = (result.attempts ?? []).filter((a) => a.kind === 'stale-connection');
      const retried = (result.attempts ?? []).filter((a) => a.kind === 'retry');
      assert.equal(resent.length, e.connectionRetries ?? 0, 'each transparent resend is an attempt of the request');
      if (e.redacted === true) {
        assert.ok(error.bodyExcerpt!.includes('[REDACTED]'), error.bodyExcerpt!);
        assert.match(error.bodyExcerpt!, /authorization/, 'the echo is there, only the key is gone');
      }
      if (e.retriedAttempts !== undefined) {
        assert.equal(retried.length, e.retriedAttempts, text);
        retried.forEach((a, i) => {
          assert.equal(a.attempt, i + 1);
          assert.equal(a.error.type, e.errorType);
          assert.equal(a.error.httpStatus, e.httpStatus);
          assert.equal(a.retryAfterS, 0.2);
          assert.equal(a.waitS, 0.2);
        });
        assert.ok(elapsedS >= 0.4, `two waits of 0.2 s, took ${elapsedS}`);
      } else {
        assert.deepEqual(retried, [], 'no retries unless asked');
      }
      // Deadlines and idle timeouts fire near their setting (undici's idle timers are coarse: up to ~1 s late).
      if (e.errorType === 'DeadlineExceeded')
        assert.ok(error.atS >= 0.99 && error.atS < 1.5, `deadline at ${error.atS}`);
      if (e.errorType === 'TimeoutError')
        assert.ok(error.atS >= 0.99 && error.atS < 2.5, `idle timeout at ${error.atS}`);
    });
  }
});

it('docs/reliability.md is generated from the fault table (run `npm run docs:reliability` after changing it)', () => {
  assert.equal(readFileSync(join(REPO_ROOT, 'docs', 'reliability.md'), 'utf8'), renderReliabilityMarkdown());
});
