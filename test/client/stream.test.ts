import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import type { Dispatcher } from 'undici';
import { streamChatCompletion, type StreamRequest } from '../../src/client/stream.js';
import { createDispatcher } from '../../src/client/transport.js';
import type { RequestResult } from '../../src/record/types.js';
import {
  DONE_EVENT,
  dataEvent,
  deltaEvent,
  httpServer,
  rawServer,
  usageEvent,
  writeSse,
  type RawRequest,
  type TestServer,
} from '../helpers/servers.js';

let dispatcher: Dispatcher;
before(() => {
  dispatcher = createDispatcher({ connections: 8, idleTimeoutS: 5 });
});
after(async () => {
  await dispatcher.close();
});

const BODY = JSON.stringify({
  model: 'm',
  messages: [{ role: 'user', content: 'hi' }],
  max_tokens: 8,
  stream: true,
  stream_options: { include_usage: true },
});

function request(server: TestServer, overrides: Partial<StreamRequest> = {}): Promise<RequestResult> {
  return streamChatCompletion({
    dispatcher,
    url: `${server.url}/v1/chat/completions`,
    headers: { 'content-type': 'application/json' },
    body: BODY,
    requestIndex: 3,
    plannedContextTokens: 4096,
    runStartNs: process.hrtime.bigint(),
    idleTimeoutS: 5,
    ...overrides,
  });
}

/** Starts a raw server whose every request is answered by `respond`, runs `fn`, closes the server. */
async function withRaw<T>(
  respond: (socket: Socket, req: RawRequest) => void | Promise<void>,
  fn: (server: TestServer) => Promise<T>,
): Promise<T> {
  const server = await rawServer((socket, req) => void respond(socket, req));
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

function assertFailure(result: RequestResult, type: string, message: string | RegExp): void {
  assert.equal(result.ok, false, JSON.stringify(result));
  assert.ok(result.error !== null);
  assert.equal(result.error.type, type, JSON.stringify(result.error));
  if (typeof message === 'string') assert.equal(result.error.message, message);
  else assert.match(result.error.message, message);
  assert.ok(result.error.atS >= 0);
}

const FINISH_STOP = dataEvent({ id: 'chatcmpl-test', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
const USAGE = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, prompt_tokens_details: { cached_tokens: 0 } };

describe('streamChatCompletion: successful streams', () => {
  it('reasoning then content: TTFO < TTFT, counts, usage from the final choices:[] chunk, finish reason, id', async () => {
    let seen: RawRequest | undefined;
    const result = await withRaw(
      (socket, req) => {
        seen = req;
        const steps = [
          deltaEvent({ reasoning_content: 'Let me think' }),
          deltaEvent({ reasoning_content: '...' }),
          deltaEvent({ content: 'Hello' }),
          deltaEvent({ content: ' world' }),
          FINISH_STOP,
          usageEvent(USAGE),
          DONE_EVENT,
        ];
        void writeSse(
          socket,
          steps.flatMap((step) => [30, step]),
        );
      },
      (server) => request(server),
    );
    assert.equal(result.ok, true, JSON.stringify(result.error));
    assert.equal(result.error, null);
    assert.equal(result.httpStatus, 200);
    assert.equal(result.requestIndex, 3);
    assert.equal(result.plannedContextTokens, 4096);
    assert.equal(result.reasoningChunks, 2);
    assert.equal(result.contentChunks, 2);
    assert.ok(result.timeToFirstOutputS !== null && result.ttftS !== null && result.e2eS !== null);
    assert.ok(result.timeToFirstOutputS < result.ttftS, `${result.timeToFirstOutputS} < ${result.ttftS}`);
    assert.ok(result.ttftS <= result.e2eS);
    assert.ok(result.ttftS - result.timeToFirstOutputS >= 0.04, 'two 30 ms gaps separate them');
    assert.deepEqual(result.usage, USAGE);
    assert.equal(result.finishReason, 'stop');
    assert.equal(result.responseId, 'chatcmpl-test');
    assert.ok(result.startOffsetMs >= 0);
    assert.ok(seen !== undefined);
    assert.match(seen.head, /^POST \/v1\/chat\/completions HTTP\/1\.1/);
    assert.match(seen.head, /content-type: application\/json/i);
    assert.equal(seen.body, BODY);
  });

  it('llama.cpp role-only first chunk with content null does not set TTFT; usage chunk carries timings', async () => {
    const result = await withRaw(
      (socket) =>
        void writeSse(socket, [
          deltaEvent({ role: 'assistant', content: null }),
          150,
          deltaEvent({ content: 'a' }),
          deltaEvent({ content: 'b' }),
          dataEvent({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }] }),
          usageEvent(USAGE),
          DONE_EVENT,
        ]),
      (server) => request(server),
    );
    assert.equal(result.ok, true, JSON.stringify(result.error));
    assert.ok(result.ttftS !== null && result.ttftS >= 0.1, `ttft ${result.ttftS}`);
    assert.equal(result.timeToFirstOutputS, result.ttftS);
    assert.equal(result.contentChunks, 2);
    assert.equal(result.reasoningChunks, 0);
    assert.equal(result.finishReason, 'length');
    assert.deepEqual(result.usage, USAGE);
  });

  it('bytes delivered one at a time (multibyte text split mid-code-point) give the same result', async () => {
    const text =
      deltaEvent({ reasoning: 'é' }) +
      deltaEvent({ content: '😀 中文' }) +
      deltaEvent({ content: 'ü' }) +
      usageEvent(USAGE) +
      DONE_EVENT;
    const bytes = Buffer.from(text, 'utf8');
    const steps: (Uint8Array | number)[] = [];
    for (const byte of bytes) steps.push(Uint8Array.of(byte), 0);
    const result = await withRaw(
      (socket) => void writeSse(socket, steps),
      (server) => request(server),
    );
    assert.equal(result.ok, true, JSON.stringify(result.error));
    assert.equal(result.reasoningChunks, 1);
    assert.equal(result.contentChunks, 2);
    assert.deepEqual(result.usage, USAGE);
    assert.ok(result.timeToFirstOutputS !== null && result.ttftS !== null && result.timeToFirstOutputS < result.ttftS);
  });

  it('CRLF line endings', async () => {
    const crlf = [
      deltaEvent({ content: 'a' }, {}, '\r\n'),
      deltaEvent({ content: 'b' }, {}, '\r\n'),
      'data: [DONE]\r\n\r\n',
    ];
    const result = await withRaw(
      (socket) => void writeSse(socket, crlf),
      (server) => request(server),
    );
    assert.equal(result.ok, true, JSON.stringify(result.error));
    assert.equal(result.contentChunks, 2);
  });

  it('missing [DONE]: EOF ends the stream (chunked end, and a close-delimited body)', async () => {
    const chunked = await withRaw(
      (socket) => void writeSse(socket, [deltaEvent({ content: 'a' }), 20, deltaEvent({ content: 'b' })]),
      (server) => request(server),
    );
    assert.equal(chunked.ok, true, JSON.stringify(chunked.error));
    assert.equal(chunked.contentChunks, 2);
    assert.ok(chunked.e2eS !== null && chunked.ttftS !== null && chunked.e2eS >= chunked.ttftS);
    const closeDelimited = await withRaw(
      (socket) => {
        socket.write(
          'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n' +
            deltaEvent({ content: 'a' }) +
            'data: {"choices":[{"delta":{"content":"b"}}]}',
        );
        setTimeout(() => socket.end(), 30);
      },
      (server) => request(server),
    );
    assert.equal(closeDelimited.ok, true, JSON.stringify(closeDelimited.error));
    assert.equal(closeDelimited.contentChunks, 2, 'the last event lacks its blank line and still counts');
  });

  it('timing: a server that waits ~200 ms before the first content gives ttftS in [0.2, 0.4]', async () => {
    const result = await withRaw(
      (socket) => void writeSse(socket, [200, deltaEvent({ content: 'x' }), DONE_EVENT]),
      (server) => request(server),
    );
    assert.equal(result.ok, true, JSON.stringify(result.error));
    // Node starts a timer from the loop's cached clock, so the server's 200 ms sleep may end up to
    // ~1 ms early on the monotonic clock; the client then honestly measures a hair under 0.2 s.
    assert.ok(result.ttftS !== null && result.ttftS >= 0.195 && result.ttftS <= 0.4, `ttftS ${result.ttftS}`);
    assert.ok(result.e2eS !== null && result.e2eS >= result.ttftS && result.e2eS <= 1);
  });

  it('reuses the keep-alive connection after [DONE] (the rest of the body is drained)', async () => {
    const server = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(deltaEvent({ content: 'a' }) + DONE_EVENT);
    });
    // One socket per origin: the second request can only be sent on the first one's socket if that
    // socket survived the first response.
    const single = createDispatcher({ connections: 1, idleTimeoutS: 5 });
    try {
      const first = await request(server, { dispatcher: single });
      const second = await request(server, { dispatcher: single });
      assert.equal(first.ok && second.ok, true);
      assert.equal(server.connections(), 1);
    } finally {
      await single.close();
      await server.close();
    }
  });
});

describe('streamChatCompletion: failures inside a 200 stream', () => {
  const failing = async (steps: (string | number)[], overrides: Partial<StreamRequest> = {}): Promise<RequestResult> =>
    withRaw(
      (socket) => void writeSse(socket, steps),
      (server) => request(server, overrides),
    );

  it('delta: null → AttributeError, partial counts kept', async () => {
    const result = await failing([deltaEvent({ content: 'a' }), deltaEvent(null), DONE_EVENT]);
    assertFailure(result, 'AttributeError', "'NoneType' object has no attribute 'get'");
    assert.equal(result.contentChunks, 1);
    assert.equal(result.httpStatus, 200);
    assert.equal(result.error?.httpStatus, 200);
    assert.equal(result.e2eS, null);
  });

  it('array chunk → AttributeError list', async () => {
    assertFailure(
      await failing([dataEvent([1, 2]), DONE_EVENT]),
      'AttributeError',
      "'list' object has no attribute 'get'",
    );
  });

  it('choices: null → TypeError', async () => {
    assertFailure(
      await failing([dataEvent({ choices: null }), DONE_EVENT]),
      'TypeError',
      "'NoneType' object is not iterable",
    );
  });

  it('invalid JSON → JSONDecodeError with an excerpt', async () => {
    const result = await failing([
      deltaEvent({ content: 'a' }),
      'data: {"choices":[{"delta":{"content":"b"\n\n',
      DONE_EVENT,
    ]);
    assertFailure(result, 'JSONDecodeError', /^invalid JSON in stream data event #2: /);
    assert.equal(result.error?.bodyExcerpt, '{"choices":[{"delta":{"content":"b"');
  });

  const llamaError = {
    error: {
      code: 500,
      message: 'The model produced output that does not match the expected peg-native format',
      type: 'server_error',
    },
  };

  it('in-stream error after content, then end without [DONE] → StreamError with the server message', async () => {
    const result = await failing([deltaEvent({ content: 'a' }), deltaEvent({ content: 'b' }), dataEvent(llamaError)]);
    assertFailure(result, 'StreamError', llamaError.error.message);
    assert.equal(result.contentChunks, 2, 'content before the error is kept for diagnosis');
    assert.ok(result.ttftS !== null);
    assert.equal(result.error?.bodyExcerpt, JSON.stringify(llamaError));
  });

  it('in-stream error line, then the socket closes without the blank line or chunk end', async () => {
    const result = await withRaw(
      async (socket) => {
        await writeSse(socket, [deltaEvent({ content: 'a' }), `data: ${JSON.stringify(llamaError)}\n`], false);
        setTimeout(() => socket.end(), 20);
      },
      (server) => request(server),
    );
    // The close is an incomplete chunked body, but the server said why first: its words win.
    assertFailure(result, 'StreamError', llamaError.error.message);
    assert.equal(result.contentChunks, 1);
  });

  it('reasoning-only stream → ValueError with e2e set', async () => {
    const result = await failing([
      deltaEvent({ reasoning_content: 'hmm' }),
      deltaEvent({ reasoning: 'more' }),
      deltaEvent({ content: '' }),
      DONE_EVENT,
    ]);
    assertFailure(result, 'ValueError', 'stream completed without visible content');
    assert.equal(result.reasoningChunks, 2);
    assert.ok(result.timeToFirstOutputS !== null && result.e2eS !== null);
    assert.equal(result.ttftS, null);
  });

  it('a 200 JSON (non-SSE) body → ValueError', async () => {
    const server = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { content: 'hello' } }] }));
    });
    try {
      assertFailure(await request(server), 'ValueError', 'stream completed without visible content');
    } finally {
      await server.close();
    }
  });

  it('a line longer than maxLineBytes → SSEParseError', async () => {
    const result = await failing([deltaEvent({ content: 'x'.repeat(5000) }), DONE_EVENT], { maxLineBytes: 1024 });
    assertFailure(result, 'SSEParseError', 'SSE line exceeds the 1024-byte limit');
  });
});

describe('streamChatCompletion: HTTP errors', () => {
  it('HTTP 400 with a JSON body: exact message, status and the body excerpt', async () => {
    const body = JSON.stringify({
      error: {
        code: 400,
        message: 'request (4210 tokens) exceeds the available context size (2048 tokens), try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 4210,
        n_ctx: 2048,
      },
    });
    const server = await httpServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(body);
    });
    try {
      const result = await request(server);
      assertFailure(result, 'HTTPError', 'HTTP Error 400: Bad Request');
      assert.equal(result.httpStatus, 400);
      assert.equal(result.error?.httpStatus, 400);
      assert.equal(result.error?.bodyExcerpt, body);
      assert.equal(result.ttftS, null);
      assert.equal(result.e2eS, null);
    } finally {
      await server.close();
    }
  });

  it('HTTP 500 with a text body; a huge error body is read only in part and cut to 2048 characters', async () => {
    const server = await httpServer((req, res) => {
      res.writeHead(req.url?.includes('huge') === true ? 503 : 500, { 'content-type': 'text/plain' });
      if (req.url?.includes('huge') === true) {
        for (let i = 0; i < 64; i++) res.write('y'.repeat(64 * 1024));
        res.end();
      } else res.end('upstream crashed\n');
    });
    try {
      const result = await request(server);
      assertFailure(result, 'HTTPError', 'HTTP Error 500: Internal Server Error');
      assert.equal(result.error?.bodyExcerpt, 'upstream crashed\n');
      const huge = await request(server, { url: `${server.url}/huge` });
      assertFailure(huge, 'HTTPError', 'HTTP Error 503: Service Unavailable');
      assert.equal(huge.error?.bodyExcerpt?.length, 2048);
    } finally {
      await server.close();
    }
  });

  it('a planted API key echoed by the server never appears in the result', async () => {
    const key = 'sk-planted-9f8e7d6c5b4a3210';
    const server = await httpServer((req, res) => {
      const auth = req.headers.authorization ?? '';
      if (req.url?.includes('stream') === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          dataEvent({
            id: `id-${key}`,
            choices: [{ delta: { content: 'a' }, finish_reason: key }],
            usage: { note: auth },
          }),
        );
        res.end(dataEvent({ error: { message: `invalid key ${key} (${auth})` } }));
        return;
      }
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': auth });
      res.end(
        JSON.stringify({
          error: { message: `Incorrect API key provided: ${key}. Header was: ${auth}`, escaped: JSON.stringify(key) },
        }),
      );
    });
    try {
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
      const http = await request(server, { headers });
      assertFailure(http, 'HTTPError', 'HTTP Error 401: Unauthorized');
      assert.ok(http.error?.bodyExcerpt?.includes('[REDACTED]'));
      const streamed = await request(server, { headers, url: `${server.url}/stream` });
      assertFailure(streamed, 'StreamError', /invalid key \[REDACTED\]/);
      assert.ok(streamed.usage !== null && streamed.usage['note'] === '[REDACTED]', JSON.stringify(streamed.usage));
      // A short numeric key that equals a token count must not damage the usage numbers.
      const numeric = await withRaw(
        (socket) =>
          void writeSse(socket, [
            deltaEvent({ content: 'a' }),
            usageEvent({ completion_tokens: 1234, note: 'k 1234' }),
            DONE_EVENT,
          ]),
        (raw) => request(raw, { headers: { authorization: 'Bearer 1234' } }),
      );
      assert.deepEqual(numeric.usage, { completion_tokens: 1234, note: 'k [REDACTED]' });
      for (const result of [http, streamed]) {
        const text = JSON.stringify(result);
        assert.ok(!text.includes(key), text);
        assert.ok(!text.includes('9f8e7d6c5b4a3210'), text);
      }
    } finally {
      await server.close();
    }
  });
});

describe('streamChatCompletion: transport failures', () => {
  it('connection refused → URLError', async () => {
    const server = await httpServer(() => {});
    await server.close(); // the port was open a moment ago and is now closed
    const result = await request(server);
    assertFailure(result, 'URLError', '<urlopen error [Errno 111] Connection refused>');
    assert.equal(result.httpStatus, null);
    assert.equal(result.e2eS, null);
  });

  it('closed before the status line → RemoteDisconnected; reset before it → ConnectionResetError', async () => {
    const fin = await withRaw(
      (socket) => void socket.end(),
      (server) => request(server),
    );
    assertFailure(fin, 'RemoteDisconnected', 'Remote end closed connection without response');
    assert.equal(fin.httpStatus, null);
    const rst = await withRaw(
      (socket) => void socket.resetAndDestroy(),
      (server) => request(server),
    );
    assertFailure(rst, 'ConnectionResetError', '[Errno 104] Connection reset by peer');
  });

  it('reset mid-stream → ConnectionResetError with the partial counts; FIN mid-chunk → IncompleteRead', async () => {
    const rst = await withRaw(
      async (socket) => {
        await writeSse(socket, [deltaEvent({ content: 'a' })], false);
        setTimeout(() => socket.resetAndDestroy(), 30);
      },
      (server) => request(server),
    );
    assertFailure(rst, 'ConnectionResetError', '[Errno 104] Connection reset by peer');
    assert.equal(rst.httpStatus, 200);
    assert.equal(rst.contentChunks, 1);
    const fin = await withRaw(
      async (socket) => {
        await writeSse(socket, [deltaEvent({ content: 'a' })], false);
        setTimeout(() => socket.end(), 30);
      },
      (server) => request(server),
    );
    assertFailure(fin, 'IncompleteRead', 'IncompleteRead(0 bytes read)');
  });

  it('a stall longer than the idle timeout → TimeoutError, mid-stream (even after reasoning) and before headers', async () => {
    const mid = await withRaw(
      (socket) => void writeSse(socket, [deltaEvent({ reasoning_content: 'r' }), 5000], false),
      (server) => request(server, { idleTimeoutS: 0.3 }),
    );
    assertFailure(mid, 'TimeoutError', 'timed out');
    assert.ok(mid.error !== null && mid.error.atS >= 0.25 && mid.error.atS < 3, `atS ${mid.error?.atS}`);
    assert.equal(mid.reasoningChunks, 1);
    const head = await withRaw(
      () => {},
      (server) => request(server, { idleTimeoutS: 0.3 }),
    );
    assertFailure(head, 'TimeoutError', 'timed out');
    assert.ok(head.error !== null && head.error.atS >= 0.25 && head.error.atS < 3, `atS ${head.error?.atS}`);
  });

  it('abort signal → CancelledError (mid-stream and before the start)', async () => {
    const controller = new AbortController();
    const result = await withRaw(
      async (socket) => {
        const steps: (string | number)[] = [];
        for (let i = 0; i < 100; i++) steps.push(deltaEvent({ content: 'x' }), 20);
        await writeSse(socket, steps);
      },
      (server) => {
        setTimeout(() => controller.abort(), 150);
        return request(server, { signal: controller.signal });
      },
    );
    assertFailure(result, 'CancelledError', 'request cancelled');
    assert.ok(result.contentChunks > 0);
    const early = await request(
      { url: 'http://127.0.0.1:9', port: 9, connections: () => 0, close: async () => {} },
      { signal: AbortSignal.abort() },
    );
    assertFailure(early, 'CancelledError', 'request cancelled');
    const waiting = new AbortController();
    const beforeHeaders = await withRaw(
      () => {},
      (server) => {
        setTimeout(() => waiting.abort(), 100);
        return request(server, { signal: waiting.signal });
      },
    );
    assertFailure(beforeHeaders, 'CancelledError', 'request cancelled');
    assert.ok(beforeHeaders.error !== null && beforeHeaders.error.atS < 2);
  });

  it('one signal shared by many concurrent requests: no listener-leak warning, all cancelled together', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    const controller = new AbortController();
    const many = createDispatcher({ connections: 32, idleTimeoutS: 5 });
    try {
      const results = await withRaw(
        (socket) => void writeSse(socket, [deltaEvent({ content: 'a' }), 10_000], false),
        (server) => {
          setTimeout(() => controller.abort(), 300);
          return Promise.all(
            Array.from({ length: 32 }, (_, i) =>
              request(server, { dispatcher: many, requestIndex: i, signal: controller.signal }),
            ),
          );
        },
      );
      assert.ok(
        results.every((r) => r.error?.type === 'CancelledError' && r.contentChunks === 1),
        JSON.stringify(results.map((r) => r.error)),
      );
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on a later tick
      assert.deepEqual(warnings, []);
    } finally {
      process.off('warning', onWarning);
      await many.close();
    }
  });

  it('an unusable URL → ValueError, no exception', async () => {
    const result = await request({ url: 'not a url', port: 0, connections: () => 0, close: async () => {} });
    assertFailure(result, 'ValueError', /^unknown url type/);
  });
});
