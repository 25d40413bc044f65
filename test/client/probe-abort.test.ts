/**
 * Probes (`/models`, `/tokenize`, connection warm-up) end when their signal aborts, against a
 * server that accepts and never answers (interrupting set-up): a signal during set-up must not wait for
 * a 15 s or 900 s timeout. Each call here has a timeout far beyond the test's own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDispatcher, getJson, postJson } from '../../src/client/transport.js';
import { warmConnections } from '../../src/execute/connections.js';
import { startSilentServer } from '../helpers/silent-server.js';

test(
  'getJson, postJson and warmConnections answer { ok: false } as soon as their signal aborts; the signal gets one listener however many requests share it',
  { timeout: 60_000 },
  async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const server = await startSilentServer();
    const dispatcher = createDispatcher({ connections: 64, idleTimeoutS: 3600 });
    try {
      const controller = new AbortController();
      const models = getJson(dispatcher, `${server.url}/models`, {}, 3600, undefined, controller.signal);
      const tokenize = postJson(
        dispatcher,
        `${server.url.replace(/\/v1$/, '')}/tokenize`,
        {},
        { prompt: 'hi' },
        3600,
        undefined,
        controller.signal,
      );
      const warm = warmConnections(dispatcher, server.url, {}, 40, controller.signal);
      await server.saw(/^GET \/v1\/models /);
      await server.saw(/^POST \/tokenize /);
      controller.abort();
      const [a, b, w] = await Promise.all([models, tokenize, warm]);
      assert.equal(a.ok, false);
      assert.equal(b.ok, false);
      assert.equal(w.succeeded, 0);
      assert.equal(w.requested, 40);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        warnings.filter((w) => w.startsWith('MaxListenersExceededWarning')),
        [],
      );
    } finally {
      process.off('warning', onWarning);
      await dispatcher.destroy();
      await server.close();
    }
  },
);
