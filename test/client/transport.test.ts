import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Dispatcher } from 'undici';
import { createDispatcher, getJson, postJson } from '../../src/client/transport.js';
import { streamChatCompletion } from '../../src/client/stream.js';
import { DONE_EVENT, deltaEvent, httpServer, rawServer, sleep, type TestServer } from '../helpers/servers.js';

let dispatcher: Dispatcher;
before(() => {
  dispatcher = createDispatcher({ connections: 4, idleTimeoutS: 5 });
});
after(async () => {
  await dispatcher.close();
});

async function withServer<T>(server: Promise<TestServer>, fn: (server: TestServer) => Promise<T>): Promise<T> {
  const running = await server;
  try {
    return await fn(running);
  } finally {
    await running.close();
  }
}

describe('createDispatcher', () => {
  it('opens at most `connections` sockets per origin and streams on all of them at once', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const server = httpServer((req, res) => {
      req.resume();
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(deltaEvent({ content: 'a' }));
      void sleep(60).then(() => {
        inFlight--;
        res.end(DONE_EVENT);
      });
    });
    await withServer(server, async (s) => {
      const limited = createDispatcher({ connections: 2, idleTimeoutS: 5 });
      try {
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            streamChatCompletion({
              dispatcher: limited,
              url: `${s.url}/v1/chat/completions`,
              headers: {},
              body: '{}',
              requestIndex: i,
              plannedContextTokens: 1,
              runStartNs: process.hrtime.bigint(),
              idleTimeoutS: 5,
            }),
          ),
        );
        assert.ok(results.every((r) => r.ok));
        assert.equal(maxInFlight, 2);
        assert.equal(s.connections(), 2, 'sockets are kept alive and reused');
      } finally {
        await limited.close();
      }
    });
  });
});

describe('getJson', () => {
  it('returns the parsed body and sends accept + caller headers', async () => {
    let seen: Record<string, unknown> = {};
    const server = httpServer((req, res) => {
      seen = req.headers;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', max_model_len: 8192 }] }));
    });
    const answer = await withServer(server, (s) =>
      getJson(dispatcher, `${s.url}/v1/models`, { authorization: 'Bearer k-123456' }, 5),
    );
    assert.deepEqual(answer, {
      ok: true,
      status: 200,
      value: { object: 'list', data: [{ id: 'm', max_model_len: 8192 }] },
    });
    assert.equal(seen['accept'], 'application/json');
    assert.equal(seen['authorization'], 'Bearer k-123456');
  });

  it('HTTP 401 echoing the key → a failure without the key', async () => {
    const key = 'sk-live-abcdef0123456789';
    const server = httpServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `bad key ${key}`, header: req.headers.authorization } }));
    });
    const answer = await withServer(server, (s) =>
      getJson(dispatcher, `${s.url}/v1/models`, { authorization: `Bearer ${key}` }, 5),
    );
    assert.ok(!answer.ok);
    assert.equal(answer.problem, 'HTTP Error 401: Unauthorized');
    assert.equal(answer.error.type, 'HTTPError');
    assert.equal(answer.error.httpStatus, 401);
    assert.match(answer.error.bodyExcerpt ?? '', /bad key \[REDACTED\]/);
    assert.ok(!JSON.stringify(answer).includes(key));
  });

  it('invalid JSON, an oversized body, refused and silent servers are failures, not exceptions', async () => {
    const server = httpServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url === '/big' ? `[${'1,'.repeat(5000)}1]` : '<html>not json</html>');
    });
    await withServer(server, async (s) => {
      const bad = await getJson(dispatcher, `${s.url}/models`, {}, 5);
      assert.ok(!bad.ok && bad.error.type === 'JSONDecodeError', JSON.stringify(bad));
      assert.match(bad.problem, /^JSONDecodeError: invalid JSON from \/models: /);
      assert.equal(bad.error.bodyExcerpt, '<html>not json</html>');
      const big = await getJson(dispatcher, `${s.url}/big`, {}, 5, 1000);
      assert.ok(!big.ok && big.error.type === 'BodyTooLarge', JSON.stringify(big));
    });
    const closed = await httpServer(() => {});
    await closed.close();
    const refused = await getJson(dispatcher, `${closed.url}/models`, {}, 5);
    assert.ok(!refused.ok);
    assert.equal(refused.problem, '<urlopen error [Errno 111] Connection refused>');
    const silent = await withServer(
      rawServer(() => {}),
      (s) => getJson(dispatcher, `${s.url}/models`, {}, 0.3),
    );
    assert.ok(!silent.ok);
    assert.equal(silent.problem, 'TimeoutError: timed out');
    const notUrl = await getJson(dispatcher, 'nope', {}, 1);
    assert.ok(!notUrl.ok && notUrl.error.type === 'ValueError');
  });
});

describe('postJson', () => {
  it('POSTs the JSON body with content-type and accept, parses the answer, and reports failures as data', async () => {
    let seen: { method: string | undefined; headers: Record<string, unknown>; body: string } = {
      method: undefined,
      headers: {},
      body: '',
    };
    const server = httpServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        seen = { method: req.method, headers: req.headers, body: Buffer.concat(parts).toString('utf8') };
        if (req.url === '/tokenize') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"count":3,"tokens":[1,2,3]}');
        } else {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end('{"error":"no route, key k-123456"}');
        }
      });
    });
    await withServer(server, async (s) => {
      const answer = await postJson(
        dispatcher,
        `${s.url}/tokenize`,
        { authorization: 'Bearer k-123456' },
        { prompt: 'hi' },
        5,
      );
      assert.deepEqual(answer, { ok: true, status: 200, value: { count: 3, tokens: [1, 2, 3] } });
      assert.equal(seen.method, 'POST');
      assert.equal(seen.body, '{"prompt":"hi"}');
      assert.equal(seen.headers['content-type'], 'application/json');
      assert.equal(seen.headers['accept'], 'application/json');
      const missing = await postJson(dispatcher, `${s.url}/nope`, { authorization: 'Bearer k-123456' }, {}, 5);
      assert.equal(missing.ok, false);
      if (!missing.ok) {
        assert.equal(missing.error.httpStatus, 404);
        assert.ok(!(missing.error.bodyExcerpt ?? '').includes('k-123456'), 'secrets echoed by the server are redacted');
      }
    });
  });
});
