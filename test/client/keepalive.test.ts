/**
 * The transparent resend after a dead connection (src/client/stale-connection.ts), against
 * scripted sockets: only a REUSED keep-alive socket that the server closes as the request goes
 * out is resent, every resend is in the request's `attempts`, and under the hand-over clock
 * (`--cold-connections`) the request's times start at its first attempt. A server that closes
 * after every stream while announcing keep-alive (llama.cpp's) loses nothing.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import type { Dispatcher } from 'undici';
import { createDispatcher, streamChatCompletion, type StreamRequest } from '../../src/client/index.js';
import {
  isStaleKeepAlive,
  STALE_CONNECTION_WINDOW_MS,
  type NoResponseEvidence,
} from '../../src/client/stale-connection.js';
import type { RequestResult } from '../../src/record/types.js';
import { DONE_EVENT, deltaEvent, rawServer, sleep, writeSse, type TestServer } from '../helpers/servers.js';

/** What a scripted server does with a request: `nth` is its number on its socket (1 = a fresh connection). */
type Script = (socket: Socket, nth: number) => void;

/** A raw server running `script`, with the number of requests it received. */
async function scripted(script: Script): Promise<{ server: TestServer; received: () => number }> {
  const perSocket = new WeakMap<Socket, number>();
  let received = 0;
  const server = await rawServer((socket) => {
    received++;
    const nth = (perSocket.get(socket) ?? 0) + 1;
    perSocket.set(socket, nth);
    script(socket, nth);
  });
  return { server, received: () => received };
}

/** A complete keep-alive SSE response (the socket stays open). */
function serve(socket: Socket): Promise<void> {
  return writeSse(socket, [deltaEvent({ content: 'hi' }), DONE_EVENT]);
}

function send(
  dispatcher: Dispatcher,
  server: TestServer,
  overrides: Partial<StreamRequest> = {},
): Promise<RequestResult> {
  return streamChatCompletion({
    dispatcher,
    url: `${server.url}/v1/chat/completions`,
    headers: { 'content-type': 'application/json' },
    body: '{}',
    requestIndex: 0,
    plannedContextTokens: 1,
    runStartNs: process.hrtime.bigint(),
    idleTimeoutS: 5,
    ...overrides,
  });
}

/** Runs `fn` with a one-socket dispatcher and the scripted server, and closes both. */
async function withScript(
  script: Script,
  fn: (dispatcher: Dispatcher, server: TestServer, received: () => number) => Promise<void>,
): Promise<void> {
  const { server, received } = await scripted(script);
  const dispatcher = createDispatcher({ connections: 1, idleTimeoutS: 5 });
  try {
    await fn(dispatcher, server, received);
  } finally {
    await dispatcher.close();
    await server.close();
  }
}

describe('a request whose connection dies before any response', () => {
  it('on a fresh connection: a failure, not resent (the server saw it once)', () =>
    withScript(
      (socket) => void socket.resetAndDestroy(),
      async (dispatcher, server, received) => {
        const result = await send(dispatcher, server);
        assert.equal(result.ok, false);
        assert.equal(result.error?.type, 'ConnectionResetError');
        assert.equal(result.attempts, undefined, JSON.stringify(result.attempts));
        assert.equal(result.connectionRetries, undefined);
        assert.equal(received(), 1, 'the server received the request once');
      },
    ));

  it('on a fresh connection closed (FIN) after reading it: a failure, not resent', () =>
    withScript(
      (socket) => void socket.end(),
      async (dispatcher, server, received) => {
        const result = await send(dispatcher, server);
        assert.equal(result.error?.type, 'RemoteDisconnected');
        assert.equal(result.attempts, undefined);
        assert.equal(received(), 1);
      },
    ));

  it('on a fresh connection with --retries: resent by the retries, each attempt recorded as a retry', () =>
    withScript(
      (socket) => void socket.resetAndDestroy(),
      async (dispatcher, server, received) => {
        const result = await send(dispatcher, server, { retry: { retries: 1, maxWaitS: 0.01 } });
        assert.equal(result.ok, false);
        assert.deepEqual(
          result.attempts?.map((a) => [a.attempt, a.kind, a.error.type]),
          [[1, 'retry', 'ConnectionResetError']],
        );
        assert.equal(result.connectionRetries, undefined);
        assert.equal(received(), 2);
      },
    ));

  it('on a reused keep-alive socket the server resets as the request arrives: resent once, and the row says so', () =>
    withScript(
      (socket, nth) => void (nth === 1 ? serve(socket) : socket.resetAndDestroy()),
      async (dispatcher, server, received) => {
        const first = await send(dispatcher, server);
        assert.equal(first.ok, true, JSON.stringify(first.error));
        assert.equal(first.attempts, undefined);
        const second = await send(dispatcher, server, { requestIndex: 1 });
        assert.equal(second.ok, true, JSON.stringify(second.error));
        assert.equal(second.connectionRetries, 1);
        assert.equal(second.attempts?.length, 1, JSON.stringify(second.attempts));
        const [discarded] = second.attempts;
        assert.equal(discarded!.attempt, 1);
        assert.equal(discarded!.kind, 'stale-connection');
        assert.equal(discarded!.error.type, 'ConnectionResetError');
        assert.equal(discarded!.error.httpStatus, null);
        assert.equal(discarded!.waitS, 0);
        assert.equal(discarded!.retryAfterS, null);
        // The write clock: the result is timed from the resend's write, which came after the discarded attempt failed.
        assert.ok(
          second.startOffsetMs >= discarded!.startOffsetMs + discarded!.error.atS * 1000,
          `${second.startOffsetMs} vs ${JSON.stringify(discarded)}`,
        );
        assert.equal(received(), 3, 'planned 2 + 1 resend');
        assert.equal(server.connections(), 2);
      },
    ));

  it(`on a reused socket the server resets ${STALE_CONNECTION_WINDOW_MS + 50} ms after reading the request: a failure, not resent`, () =>
    withScript(
      (socket, nth) =>
        void (nth === 1 ? serve(socket) : setTimeout(() => socket.resetAndDestroy(), STALE_CONNECTION_WINDOW_MS + 50)),
      async (dispatcher, server, received) => {
        assert.equal((await send(dispatcher, server)).ok, true);
        const late = await send(dispatcher, server, { requestIndex: 1 });
        assert.equal(late.ok, false);
        assert.equal(late.error?.type, 'ConnectionResetError');
        assert.equal(late.attempts, undefined, 'the server had time to act on it');
        assert.equal(received(), 2);
      },
    ));

  it('a server that closes after every stream (llama.cpp): every request completes, every resend is recorded', () => {
    // It announces keep-alive, then closes each connection a moment after its stream, ignoring
    // what arrived meanwhile: the next request, written at once on that socket, meets the close.
    const closing = new WeakSet<Socket>();
    return withScript(
      (socket) => {
        if (closing.has(socket)) return;
        void serve(socket).then(() => {
          closing.add(socket);
          setTimeout(() => socket.end(), 20);
        });
      },
      async (dispatcher, server, received) => {
        let resends = 0;
        for (let i = 0; i < 6; i++) {
          const result = await send(dispatcher, server, { requestIndex: i });
          assert.equal(result.ok, true, `request ${i}: ${JSON.stringify(result.error)}`);
          assert.equal(result.attempts?.length ?? 0, result.connectionRetries ?? 0, 'every resend is listed');
          resends += result.connectionRetries ?? 0;
        }
        assert.equal(received(), 6 + resends);
      },
    );
  });
});

describe('the clock of a resent request', () => {
  const DELAY_MS = 150;
  /**
   * The first request the server ever gets is answered after DELAY_MS; a request on a reused socket
   * is reset as it arrives; any other is answered at once. Two requests sent together on one
   * socket: the second waits for the first, is written on the reused socket, and is resent.
   */
  const script = (): Script => {
    let first = true;
    return (socket, nth) => {
      if (nth > 1) return void socket.resetAndDestroy();
      if (first) {
        first = false;
        void sleep(DELAY_MS).then(() => serve(socket));
        return;
      }
      void serve(socket);
    };
  };

  it('--cold-connections (hand-over clock): TTFT and E2E start at the first attempt', () =>
    withScript(script(), async (dispatcher, server, received) => {
      const [a, b] = await Promise.all([
        send(dispatcher, server, { timeFrom: 'dispatch' }),
        send(dispatcher, server, { timeFrom: 'dispatch', requestIndex: 1 }),
      ]);
      assert.equal(a.ok, true, JSON.stringify(a.error));
      assert.equal(b.ok, true, JSON.stringify(b.error));
      // b was handed over before the server even read a; a was answered DELAY_MS after that, and
      // only then was b written (and reset, and resent): everything b waited counts.
      assert.ok(
        b.ttftS! >= (DELAY_MS - 5) / 1000,
        `TTFT ${b.ttftS} s includes the ${DELAY_MS} ms the first attempt waited`,
      );
      assert.ok(b.e2eS! >= b.ttftS!);
      assert.equal(b.attempts?.length, 1, JSON.stringify(b));
      const [discarded] = b.attempts;
      assert.equal(discarded!.kind, 'stale-connection');
      assert.ok(discarded!.error.atS >= (DELAY_MS - 5) / 1000, `the first attempt lasted ${discarded!.error.atS} s`);
      assert.equal(
        b.startOffsetMs,
        discarded!.startOffsetMs,
        'the result starts where the first attempt was handed over',
      );
      assert.equal(received(), 3);
    }));

  it('the write clock: timed from the resend, the discarded attempt kept with its own start', () =>
    withScript(script(), async (dispatcher, server) => {
      const [, b] = await Promise.all([send(dispatcher, server), send(dispatcher, server, { requestIndex: 1 })]);
      assert.equal(b.ok, true, JSON.stringify(b.error));
      const [discarded] = b.attempts!;
      assert.equal(discarded!.kind, 'stale-connection');
      assert.ok(b.startOffsetMs > discarded!.startOffsetMs, 'the result starts at the resend');
    }));
});

describe('isStaleKeepAlive: the evidence a transparent resend needs', () => {
  const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
  const at = (ms: number): bigint => BigInt(Math.round(ms * 1e6));
  const stale: NoResponseEvidence = {
    requestsOnSocket: 2,
    writtenNs: at(1000),
    failedNs: at(1001),
    informational: false,
  };

  it('a reset, a close or a broken pipe right after the write on a reused socket: yes', () => {
    assert.equal(isStaleKeepAlive(reset, stale, false), true);
    assert.equal(
      isStaleKeepAlive(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }), stale, false),
      true,
    );
    assert.equal(isStaleKeepAlive(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), stale, false), true);
    assert.equal(isStaleKeepAlive(reset, { ...stale, failedNs: at(1000 + STALE_CONNECTION_WINDOW_MS) }, false), true);
  });

  it('any piece missing: no', () => {
    assert.equal(isStaleKeepAlive(reset, { ...stale, requestsOnSocket: 1 }, false), false, 'a fresh connection');
    assert.equal(
      isStaleKeepAlive(reset, { ...stale, requestsOnSocket: null, writtenNs: null }, false),
      false,
      'never written',
    );
    assert.equal(isStaleKeepAlive(reset, { ...stale, informational: true }, false), false, 'the server had sent a 1xx');
    assert.equal(
      isStaleKeepAlive(reset, { ...stale, failedNs: at(1001 + STALE_CONNECTION_WINDOW_MS) }, false),
      false,
      'too late',
    );
    assert.equal(isStaleKeepAlive(reset, stale, true), false, 'already resent once');
    assert.equal(
      isStaleKeepAlive(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), stale, false),
      false,
    );
    assert.equal(
      isStaleKeepAlive(
        Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' }),
        stale,
        false,
      ),
      false,
    );
  });
});
