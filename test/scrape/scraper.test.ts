/** The scraper's thread on real sockets: phases, the clock, and endpoints that never answer or refuse. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServerScrape } from '../../src/scrape/scraper.js';
import { scrapeEndpoint } from '../../src/scrape/endpoint.js';
import { httpServer } from '../helpers/servers.js';

const EXPOSITION =
  '# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name="m"} 3\nthis line is not a sample\n';

test('a working endpoint: a baseline, scrapes during the run, a final one, on the monotonic clock; an unreadable line is one note', async () => {
  let inFlight = 0;
  let maxInFlight = 0;
  const server = await httpServer((req, res) => {
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    res.on('close', () => inFlight--);
    res.end(EXPOSITION);
  });
  try {
    const endpoint = scrapeEndpoint({ kind: 'url', url: `${server.url}/metrics` }, `${server.url}/v1`, null);
    const before = process.hrtime.bigint();
    const scrape = await startServerScrape({ endpoint, intervalS: 0.1 });
    assert.deepEqual(scrape.baseline, { ok: true });
    await sleep(450);
    const end = process.hrtime.bigint();
    const log = await scrape.stop();
    assert.equal(log.engine, 'vllm');
    assert.equal(log.failed, 0);
    assert.equal(log.attempted, log.scrapes.length);
    assert.equal(log.scrapes[0]!.phase, 'before');
    assert.equal(log.scrapes.at(-1)!.phase, 'after');
    assert.ok(log.scrapes.some((s) => s.phase === 'during'));
    assert.ok(log.scrapes[0]!.atNs > before);
    assert.ok(log.scrapes.at(-1)!.atNs > end);
    for (let i = 1; i < log.scrapes.length; i++) assert.ok(log.scrapes[i]!.atNs > log.scrapes[i - 1]!.atNs);
    assert.equal(log.scrapes[0]!.values.series.requests_running, 3);
    assert.equal(log.notes.length, 1, log.notes.join(' | '));
    assert.match(log.notes[0]!, /could not be read and were skipped/);
    assert.equal(maxInFlight, 1);
  } finally {
    await server.close();
  }
});

test('an endpoint that accepts and never answers: the baseline fails at its deadline, stop() returns, one note', async () => {
  const sockets = new Set<import('node:net').Socket>();
  const silent = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as AddressInfo;
  try {
    const endpoint = scrapeEndpoint(
      { kind: 'url', url: `http://127.0.0.1:${port}/metrics` },
      'http://127.0.0.1:1/v1',
      null,
    );
    const scrape = await startServerScrape({ endpoint, intervalS: 0.1 });
    assert.equal(scrape.baseline.ok, false);
    const log = await scrape.stop();
    assert.equal(log.scrapes.length, 0);
    assert.ok(log.failed >= 2);
    assert.equal(log.notes.length, 1);
    assert.match(log.notes[0]!, /^\d+ of \d+ scrapes failed: no complete answer within \d+ ms$/);
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

test('auto whose endpoint refuses: the baseline says why, and the thread sends nothing more', async () => {
  const closed = createNetServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const endpoint = scrapeEndpoint({ kind: 'auto' }, `http://127.0.0.1:${port}/v1`, 'sk-never-in-a-note');
  const scrape = await startServerScrape({ endpoint, intervalS: 0.1 });
  assert.deepEqual(scrape.baseline, { ok: false, problem: 'connection failed (ECONNREFUSED)' });
  const log = await scrape.stop();
  assert.equal(log.attempted, 1);
  assert.equal(log.source, 'auto');
  assert.ok(!JSON.stringify(log.notes).includes('sk-never'));
});
