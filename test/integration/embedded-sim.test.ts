/**
 * The embedded simulator (`servebench run` without --base-url) runs in a thread of its own: it
 * answers while the client's thread is busy, so its work never stalls the client's event loop.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { once } from 'node:events';
import { startEmbeddedSimulator } from '../../src/cli/embedded-sim.js';
import { InterruptedError } from '../../src/util/errors.js';

test('the embedded simulator reads a request while the client thread is blocked', async () => {
  const sim = await startEmbeddedSimulator(null);
  try {
    const body = JSON.stringify({
      model: sim.model,
      messages: [{ role: 'user', content: 'hello' }],
      max_tokens: 2,
      stream: true,
    });
    const { hostname, port } = new URL(sim.baseUrl);
    const socket = connect(Number(port), hostname);
    await once(socket, 'connect');
    let answer = '';
    socket.setEncoding('utf8').on('data', (text: string) => (answer += text));
    const ended = once(socket, 'end');
    // The request leaves in this synchronous write; from here this thread is busy, so only a
    // simulator on another thread can read and stamp it before the busy loop ends.
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
    const until = process.hrtime.bigint() + 300_000_000n;
    while (process.hrtime.bigint() < until) {
      // blocked
    }
    const blockEndNs = process.hrtime.bigint();
    await ended;
    assert.match(answer, /data: \[DONE\]/);
    const truth = (await (await fetch(`${sim.baseUrl.replace(/\/v1$/, '')}/sim/ground-truth`)).json()) as {
      monotonic_origin_ns: string;
      requests: { receivedNs: number }[];
    };
    assert.equal(truth.requests.length, 1);
    const receivedNs = BigInt(truth.monotonic_origin_ns) + BigInt(Math.round(truth.requests[0]!.receivedNs));
    assert.ok(
      receivedNs < blockEndNs,
      `the simulator stamped the request ${Number(receivedNs - blockEndNs) / 1e6} ms after the client thread was free again`,
    );
  } finally {
    await sim.close();
  }
});

test('a bad embedded simulator configuration fails before any thread starts, naming the problem', async () => {
  await assert.rejects(startEmbeddedSimulator({ decode_step_ms: -1 }), /decode_step_ms/);
});

/** `connected`, or the error code of a connect to the port (ECONNREFUSED once nothing listens). */
function tryConnect(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)));
  });
}

test('closing twice is harmless: every close resolves, the port is closed afterwards, nothing rejects unhandled', async () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', record);
  try {
    const sim = await startEmbeddedSimulator(null);
    assert.equal(await tryConnect(sim.baseUrl), 'connected', 'precondition: the simulator listens');
    assert.deepEqual(
      await Promise.all([sim.close(), sim.close()]),
      [undefined, undefined],
      'two concurrent closes both resolve',
    );
    assert.equal(await sim.close(), undefined, 'a close after the close resolves too');
    assert.equal(await tryConnect(sim.baseUrl), 'ECONNREFUSED', 'nothing listens on the port any more');
    // An unhandled rejection is reported after the microtask queue drains: give it a turn.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', record);
  }
});

test('a signal while the simulator thread starts stops it: the start rejects with InterruptedError', async () => {
  const controller = new AbortController();
  const starting = startEmbeddedSimulator(null, controller.signal);
  controller.abort();
  await assert.rejects(starting, InterruptedError);
  // A thread left running would keep this file's process alive after its last test.
});
