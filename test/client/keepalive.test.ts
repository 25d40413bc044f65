/**
 * A server that announces keep-alive but drops every connection after one streamed response
 * (as llama.cpp's server does): the request sent on the dead socket is resent once on a fresh
 * connection, counted, and nothing is lost. A server that resets every request is not retried
 * forever: one resend, then the failure is recorded.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createDispatcher, streamChatCompletion } from '../../src/client/index.js';

let server: Server;
let url: string;
let resetAll = false;
const served = new WeakSet<Socket>();

before(async () => {
  server = createServer((req, res) => {
    if (resetAll || served.has(req.socket)) {
      // This socket already carried a stream: it is "closed" — drop the request unread.
      req.socket.destroy();
      return;
    }
    served.add(req.socket);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', connection: 'keep-alive', 'keep-alive': 'timeout=5, max=100' });
      res.write('data: {"id":"x","choices":[{"delta":{"content":"hi"}}]}\n\n');
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
});

after(() => new Promise((resolve) => server.close(resolve)));

const request = (dispatcher: ReturnType<typeof createDispatcher>, index: number) =>
  streamChatCompletion({ dispatcher, url, headers: { 'content-type': 'application/json' }, body: '{}', requestIndex: index, plannedContextTokens: 1, runStartNs: process.hrtime.bigint(), idleTimeoutS: 5 });

test('requests on connections the server dropped after a stream are resent once and succeed', async () => {
  const dispatcher = createDispatcher({ connections: 1, idleTimeoutS: 5 });
  try {
    let retries = 0;
    for (let i = 0; i < 6; i++) {
      const result = await request(dispatcher, i);
      assert.equal(result.ok, true, `request ${i}: ${JSON.stringify(result.error)}`);
      retries += result.connectionRetries ?? 0;
    }
    assert.ok(retries >= 1 && retries <= 5, `${retries} resends`);
  } finally {
    await dispatcher.close();
  }
});

test('a server that resets every request: one resend, then a recorded failure', async () => {
  resetAll = true;
  const dispatcher = createDispatcher({ connections: 1, idleTimeoutS: 5 });
  try {
    const result = await request(dispatcher, 0);
    assert.equal(result.ok, false);
    assert.match(result.error!.type, /RemoteDisconnected|ConnectionResetError/);
    assert.equal(result.connectionRetries, 1);
  } finally {
    resetAll = false;
    await dispatcher.close();
  }
});
