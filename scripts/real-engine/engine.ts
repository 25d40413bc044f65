/**
 * Start and stop llama-server for tests: 127.0.0.1 only, a free port found by binding port 0
 * (llama-server has no port 0), readiness by polling `/health`, stop by PID (SIGTERM, then
 * SIGKILL). The server's own log goes to a file under the cache directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { logsDir, requireEngine } from './paths.js';

export interface LlamaServerOptions {
  model: string;
  /** Name served on /v1/models (`-a`). */
  alias: string;
  /** Total context (`-c`); each of the `parallel` slots gets ctx / parallel. */
  ctx?: number;
  parallel?: number;
  threads?: number;
  /** Default sampling seed (`-s`); requests that send none use it. */
  seed?: number;
  extraArgs?: string[];
  /** How long to wait for /health, ms. */
  readyTimeoutMs?: number;
}

export interface LlamaServer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  port: number;
  pid: number;
  logPath: string;
  /** Milliseconds from spawn to a 200 on /health. */
  readyMs: number;
  args: string[];
  stop(): Promise<void>;
}

/** A port that was free a moment ago: bind 127.0.0.1:0, read the port, close. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('could not get a free port'))));
    });
  });
}

/** Starts llama-server and resolves once /health answers 200. Retries once on a port race. */
export async function startLlamaServer(opts: LlamaServerOptions): Promise<LlamaServer> {
  try {
    return await startOnce(opts);
  } catch (error) {
    if (error instanceof PortInUseError) return startOnce(opts);
    throw error;
  }
}

class PortInUseError extends Error {}

/** Servers started by this process, killed by PID if the process exits without stopping them. */
const running = new Set<number>();
let exitHook = false;
function track(pid: number): void {
  running.add(pid);
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    for (const p of running) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

async function startOnce(opts: LlamaServerOptions): Promise<LlamaServer> {
  const bin = requireEngine();
  const port = await freePort();
  mkdirSync(logsDir(), { recursive: true });
  const logPath = join(logsDir(), `llama-server-${opts.alias}-${port}-${process.pid}.log`);
  const args = [
    '-m',
    opts.model,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '-a',
    opts.alias,
    '-c',
    String(opts.ctx ?? 8192),
    '-np',
    String(opts.parallel ?? 4),
    '-t',
    String(opts.threads ?? 2),
    '--metrics',
    ...(opts.seed === undefined ? [] : ['-s', String(opts.seed)]),
    ...(opts.extraArgs ?? []),
  ];
  const logFd = openSync(logPath, 'w');
  const t0 = performance.now();
  let child: ChildProcess;
  try {
    // Run from build/bin: the binary finds its shared libraries (libllama.so, libggml*.so) there.
    child = spawn(bin, args, { cwd: dirname(bin), stdio: ['ignore', logFd, logFd], detached: false });
  } finally {
    closeSync(logFd);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${basename(bin)}`);
  track(pid);
  let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exitPromise = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      running.delete(pid);
      exited = { code, signal };
      resolve();
    });
  });
  const origin = `http://127.0.0.1:${port}`;

  const stop = async (): Promise<void> => {
    if (exited !== null) return;
    process.kill(pid, 'SIGTERM');
    const killed = await Promise.race([exitPromise.then(() => true), sleep(5000).then(() => false)]);
    if (!killed && exited === null) {
      process.kill(pid, 'SIGKILL');
      await exitPromise;
    }
  };

  const deadline = t0 + (opts.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (exited !== null) {
      const log = tail(logPath);
      if (/bind|address already in use/i.test(log)) throw new PortInUseError(`port ${port} was taken`);
      const e = exited as { code: number | null; signal: NodeJS.Signals | null };
      throw new Error(
        `llama-server exited (code ${String(e.code)}, signal ${String(e.signal)}) before it was ready; log ${logPath}:\n${log}`,
      );
    }
    if (await healthy(origin)) break;
    if (performance.now() > deadline) {
      await stop();
      throw new Error(
        `llama-server was not ready on ${origin}/health within ${opts.readyTimeoutMs ?? 60_000} ms; log ${logPath}:\n${tail(logPath)}`,
      );
    }
    await sleep(50);
  }
  return { origin, baseUrl: `${origin}/v1`, port, pid, logPath, readyMs: performance.now() - t0, args, stop };
}

async function healthy(origin: string): Promise<boolean> {
  try {
    const response = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

function tail(path: string, lines = 25): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `/metrics` as name → value (Prometheus text format; samples without labels, as llama-server writes them). */
export async function scrapeMetrics(origin: string): Promise<Map<string, number>> {
  const response = await fetch(`${origin}/metrics`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}: ${text.slice(0, 200)}`);
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const match = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match !== null) values.set(match[1]!, Number(match[2]));
  }
  return values;
}
