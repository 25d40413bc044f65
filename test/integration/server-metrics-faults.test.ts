/**
 * `--server-metrics` against endpoints that misbehave: missing (404), slow beyond the interval,
 * huge (streamed past the byte bound), malformed (an HTML page). Each run goes on as if the
 * endpoint were not there: its normal exit code, every request completed, and the result's
 * `servebench.server_metrics` says what happened in one note. `auto` against a server without
 * /metrics adds no block and says so once. Real sockets: the embedded simulator serves the chat
 * requests, a node:http server on 127.0.0.1 port 0 the metrics.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';
import { forwardRequest, httpServer, type TestServer } from '../helpers/servers.js';
import { leakedForms, PLANTED_KEY } from '../helpers/secrets.js';

/** Enough requests and tokens that the run outlasts a few scrape intervals. */
const RUN = ['--requests', '6', '--concurrency', '2', '--ctx-tokens', '128', '--max-tokens', '24', '--quiet'];

/** A small exposition in vLLM's names. */
const EXPOSITION =
  '# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name="m"} 1\n' +
  '# TYPE vllm:prompt_tokens_total counter\nvllm:prompt_tokens_total{model_name="m"} 100\n';

type Mode = 'missing' | 'slow' | 'huge' | 'malformed' | 'ok';

interface MetricsServer extends TestServer {
  /** Every metrics request's Authorization header (null when absent). */
  authorizations: (string | null)[];
  /** The most requests that were ever in flight at once. */
  maxInFlight: () => number;
}

async function metricsServer(mode: Mode): Promise<MetricsServer> {
  const authorizations: (string | null)[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let served = 0;
  const server = await httpServer((req: IncomingMessage, res: ServerResponse) => {
    authorizations.push(req.headers.authorization ?? null);
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    res.on('close', () => inFlight--);
    served++;
    if (mode === 'missing') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
    } else if (mode === 'malformed') {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><html><body><h1>Login</h1></body></html>\n');
    } else if (mode === 'slow') {
      // The baseline answers; every later scrape waits far beyond any scrape's deadline.
      if (served === 1) res.end(EXPOSITION);
      else setTimeout(() => res.end(EXPOSITION), 30_000).unref();
    } else if (mode === 'huge') {
      // Streamed without a length, so only the reader's running count can stop it.
      res.writeHead(200, { 'content-type': 'text/plain' });
      const line = `vllm:huge{pad="${'x'.repeat(4000)}"} 1\n`;
      let sent = 0;
      const pump = (): void => {
        while (sent < 16 * 1024 * 1024 && !res.destroyed) {
          sent += line.length;
          if (!res.write(line)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    } else {
      res.end(EXPOSITION);
    }
  });
  return { ...server, authorizations, maxInFlight: () => maxInFlight };
}

interface ServerMetrics {
  url: string;
  source: string;
  status: string;
  notes: string[];
  scrapes: { attempted: number; ok: number; failed: number };
  series: { t_s: number[] };
}

interface RunOutcome {
  code: number | null;
  stderr: string;
  text: string;
  result: { requests: number; completed: number; failed: number; servebench: Record<string, unknown> };
  block: ServerMetrics | undefined;
  journal: string;
  output: string;
}

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'servebench-server-metrics-'));
});

async function run(name: string, args: string[], env?: NodeJS.ProcessEnv): Promise<RunOutcome> {
  const output = join(dir, `${name}.json`);
  const cli = await runCli(['run', ...RUN, '--output', output, ...args], env === undefined ? {} : { env });
  const text = cli.code === 2 ? '{}' : readFileSync(output, 'utf8');
  const result = JSON.parse(text) as RunOutcome['result'];
  return {
    code: cli.code,
    stderr: cli.stderr,
    text,
    result,
    block: result.servebench?.['server_metrics'] as ServerMetrics | undefined,
    journal: join(dir, `${name}.journal.jsonl`),
    output,
  };
}

function assertRunUntouched(outcome: RunOutcome): void {
  assert.equal(outcome.code, 0, outcome.stderr);
  assert.equal(outcome.result.completed, 6);
  assert.equal(outcome.result.failed, 0);
}

function assertOneNote(block: ServerMetrics | undefined, pattern: RegExp): void {
  assert.ok(block !== undefined, 'the result has servebench.server_metrics');
  assert.equal(block.notes.length, 1, block.notes.join(' | '));
  assert.match(block.notes[0]!, pattern);
  assert.doesNotMatch(block.notes[0]!, /\n/);
}

test('a missing endpoint (404): the run is untouched, status unavailable, one note; credentials and query are not recorded', async () => {
  const metrics = await metricsServer('missing');
  try {
    const url = `http://scraper:hunter22@127.0.0.1:${metrics.port}/metrics?token=abcdef`;
    const outcome = await run('missing', ['--server-metrics', url, '--scrape-interval', '0.2']);
    assertRunUntouched(outcome);
    assertOneNote(outcome.block, /HTTP 404/);
    assert.equal(outcome.block!.status, 'unavailable');
    assert.equal(outcome.block!.source, 'flag');
    assert.equal(outcome.block!.url, `http://127.0.0.1:${metrics.port}/metrics`);
    assert.equal(outcome.block!.scrapes.ok, 0);
    assert.ok(outcome.block!.scrapes.failed >= 2, 'the baseline and the final scrape at least');
    for (const secret of ['hunter22', 'token=abcdef']) {
      assert.ok(!outcome.text.includes(secret), `the result holds ${secret}`);
      assert.ok(!readFileSync(outcome.journal, 'utf8').includes(secret), `the journal holds ${secret}`);
    }
    // The URL's own credentials went to it as Basic authentication.
    assert.ok(metrics.authorizations.every((a) => a === `Basic ${Buffer.from('scraper:hunter22').toString('base64')}`));
  } finally {
    await metrics.close();
  }
});

test('a slow endpoint (beyond the interval): the run is untouched, status partial, one note; never two scrapes at once', async () => {
  const metrics = await metricsServer('slow');
  try {
    const outcome = await run('slow', [
      '--server-metrics',
      `http://127.0.0.1:${metrics.port}/metrics`,
      '--scrape-interval',
      '0.2',
    ]);
    assertRunUntouched(outcome);
    assertOneNote(outcome.block, /failed: no complete answer within \d+ ms/);
    assert.equal(outcome.block!.status, 'partial');
    assert.equal(outcome.block!.scrapes.ok, 1, 'the baseline');
    assert.ok(outcome.block!.scrapes.failed >= 1, 'the final scrape at least');
    assert.equal(metrics.maxInFlight(), 1);
  } finally {
    await metrics.close();
  }
});

test('a huge endpoint (streamed past 8 MiB): the run is untouched, status unavailable, one note', async () => {
  const metrics = await metricsServer('huge');
  try {
    const outcome = await run('huge', ['--server-metrics', `http://127.0.0.1:${metrics.port}/metrics`]);
    assertRunUntouched(outcome);
    assertOneNote(outcome.block, /exceeds 8 MiB/);
    assert.equal(outcome.block!.status, 'unavailable');
  } finally {
    await metrics.close();
  }
});

test('a malformed endpoint (an HTML page): the run is untouched, status unavailable, one note; rebuild reproduces the result', async () => {
  const metrics = await metricsServer('malformed');
  try {
    const outcome = await run('malformed', [
      '--server-metrics',
      `http://127.0.0.1:${metrics.port}/metrics`,
      '--scrape-interval',
      '0.5',
    ]);
    assertRunUntouched(outcome);
    assertOneNote(outcome.block, /not the Prometheus text format/);
    assert.equal(outcome.block!.status, 'unavailable');
    const rebuilt = join(dir, 'malformed.rebuilt.json');
    const rebuild = await runCli(['rebuild', outcome.journal, '--output', rebuilt]);
    assert.equal(rebuild.code, 0, rebuild.stderr);
    assert.equal(readFileSync(rebuilt, 'utf8'), outcome.text);
  } finally {
    await metrics.close();
  }
});

test('a working endpoint at another origin: complete, a scrape before the first request and after the last, no API key sent; rebuild reproduces it', async () => {
  const metrics = await metricsServer('ok');
  try {
    const outcome = await run(
      'ok',
      [
        '--server-metrics',
        `http://127.0.0.1:${metrics.port}/metrics`,
        '--scrape-interval',
        '0.2',
        '--api-key-env',
        'SB_KEY',
      ],
      { ...process.env, SB_KEY: PLANTED_KEY },
    );
    assertRunUntouched(outcome);
    const block = outcome.block!;
    assert.equal(block.status, 'complete', block.notes.join(' | '));
    assert.deepEqual(block.notes, []);
    assert.ok(block.series.t_s[0]! < 0, 'the baseline precedes the run start');
    assert.ok(block.series.t_s.length >= 2);
    assert.ok(
      metrics.authorizations.every((a) => a === null),
      'the key never goes to another origin',
    );
    assert.equal(metrics.maxInFlight(), 1);
    const rebuilt = join(dir, 'ok.rebuilt.json');
    const rebuild = await runCli(['rebuild', outcome.journal, '--output', rebuilt]);
    assert.equal(rebuild.code, 0, rebuild.stderr);
    assert.equal(readFileSync(rebuilt, 'utf8'), outcome.text);
    assert.deepEqual(
      leakedForms(outcome.text + readFileSync(outcome.journal, 'utf8') + outcome.stderr, PLANTED_KEY),
      [],
    );
  } finally {
    await metrics.close();
  }
});

/** A chat server without /metrics: forwards everything to the simulator but /metrics, which is 404; records /metrics requests' Authorization. */
async function withoutMetrics(sim: SimHandle): Promise<TestServer & { metricsAuth: (string | null)[] }> {
  const upstream = new URL(sim.url);
  const metricsAuth: (string | null)[] = [];
  const server = await httpServer((req, res) => {
    if (req.url === '/metrics') {
      metricsAuth.push(req.headers.authorization ?? null);
      res.writeHead(404).end();
      return;
    }
    forwardRequest(upstream, req, res);
  });
  return { ...server, url: `${server.url}/v1`, metricsAuth };
}

let sim: SimHandle;
before(async () => {
  sim = await startSim({ prefill_tok_s: 400000, decode_step_ms: 2 });
});
after(async () => sim.close());

test('auto against a server without /metrics: no block, one console line; the probe had the key (same origin), the line has not', async () => {
  const proxy = await withoutMetrics(sim);
  try {
    const outcome = await run('auto-missing', ['--base-url', proxy.url, '--api-key-env', 'SB_KEY'], {
      ...process.env,
      SB_KEY: PLANTED_KEY,
    });
    assertRunUntouched(outcome);
    assert.equal(outcome.block, undefined);
    const lines = outcome.stderr.split('\n').filter((l) => /server metrics/.test(l));
    assert.equal(lines.length, 1, outcome.stderr);
    assert.match(lines[0]!, /^warning: no server metrics: http:\/\/127\.0\.0\.1:\d+\/metrics .*HTTP 404/);
    assert.deepEqual(proxy.metricsAuth, [`Bearer ${PLANTED_KEY}`], 'probed once, with the key');
    assert.deepEqual(leakedForms(outcome.stderr + outcome.text, PLANTED_KEY), []);
  } finally {
    await proxy.close();
  }
});

test('a malformed --server-metrics URL, or a URL with --shard, is refused in one line before anything is sent', async () => {
  for (const args of [
    ['--server-metrics', 'ftp://127.0.0.1/metrics'],
    ['--server-metrics', 'not a url'],
    ['--server-metrics', 'http://127.0.0.1:9/metrics', '--shard', '0/2'],
    ['--server-metrics', 'http://127.0.0.1:9/metrics', '--shards', '2'],
    ['--scrape-interval', '0'],
  ]) {
    const cli = await runCli(['run', '--base-url', sim.url, ...args, '--output', join(dir, 'refused.json')]);
    assert.equal(cli.code, 2, args.join(' '));
    assert.equal(cli.stderr.trim().split('\n').length, 1, cli.stderr);
    assert.match(cli.stderr, /^servebench run: /);
  }
});
