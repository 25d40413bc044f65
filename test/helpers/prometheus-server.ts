/**
 * A real `prometheus` (Debian's, installed by .ci/run) on 127.0.0.1 for a test: a generated
 * configuration scraping the given targets every second, its TSDB in a temporary folder, stopped
 * by its PID. A missing binary fails the test: CI installs it, so a skip would only hide a broken
 * setup.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { stopByPid } from './child-process.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis-server.js';

export interface PrometheusServer {
  /** http://127.0.0.1:PORT, its HTTP API's origin. */
  origin: string;
  pid: number;
  /** The result of an instant query (`/api/v1/query`): each series' labels and value. */
  query(expression: string): Promise<Array<{ metric: Record<string, string>; value: number }>>;
  /** Every raw sample of a range selector such as `x[5m]`, per series. */
  samples(selector: string): Promise<Array<{ metric: Record<string, string>; values: number[] }>>;
  stop(): Promise<void>;
}

const PORT_ATTEMPTS = 5;
const READY_TIMEOUT_MS = 30_000;

/** Starts prometheus scraping `targets` (host:port, path /metrics) as job `job`, every 1 s. */
export async function startPrometheus(job: string, targets: readonly string[]): Promise<PrometheusServer> {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  // Every second: several scrapes inside a run of seconds. A scrape timeout may not exceed the interval.
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      `  - job_name: ${job}`,
      '    static_configs:',
      `      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`,
      '',
    ].join('\n'),
  );
  let lastProblem = '';
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    const port = await freePort();
    const started = await tryStart(dir, config, port);
    if (typeof started !== 'string') return started;
    lastProblem = started;
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`prometheus did not start after ${PORT_ATTEMPTS} ports: ${lastProblem}`);
}

async function tryStart(dir: string, config: string, port: number): Promise<PrometheusServer | string> {
  const child = spawn(
    'prometheus',
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, `data-${port}`)}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`cannot run prometheus: ${error.message}`));
    child.once('exit', (code, signal) =>
      resolve(`prometheus exited (${code ?? signal}): ${output.trim().slice(-300)}`),
    );
  });
  const origin = `http://127.0.0.1:${port}`;
  const ready = await Promise.race([waitForReady(origin, child), exited]);
  if (ready !== true) {
    await stopByPid(child, 10_000);
    return ready;
  }
  const api = async (expression: string): Promise<unknown[]> => {
    const response = await fetch(`${origin}/api/v1/query?query=${encodeURIComponent(expression)}`);
    const body = (await response.json()) as { status: string; error?: string; data?: { result: unknown[] } };
    if (body.status !== 'success') throw new Error(`prometheus query ${expression}: ${body.error ?? body.status}`);
    return body.data?.result ?? [];
  };
  return {
    origin,
    pid: child.pid!,
    query: async (expression) =>
      ((await api(expression)) as Array<{ metric: Record<string, string>; value: [number, string] }>).map((r) => ({
        metric: r.metric,
        value: Number(r.value[1]),
      })),
    samples: async (selector) =>
      ((await api(selector)) as Array<{ metric: Record<string, string>; values: Array<[number, string]> }>).map(
        (r) => ({ metric: r.metric, values: r.values.map(([, v]) => Number(v)) }),
      ),
    stop: async () => {
      await stopByPid(child, 10_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** true once /-/ready answers 200 from this child; a message when time runs out. */
async function waitForReady(origin: string, child: ChildProcess): Promise<true | string> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
    try {
      const response = await fetch(`${origin}/-/ready`);
      await response.text();
      if (response.status === 200) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return `no answer on ${origin}/-/ready within ${READY_TIMEOUT_MS} ms`;
}
