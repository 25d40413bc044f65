/**
 * A real `redis-server` (Debian's, installed by .ci/run) on 127.0.0.1 for a test, with no
 * persistence, stopped by its PID. A missing binary fails the test: CI installs it, so a skip
 * would only hide a broken setup. The configuration goes in on stdin (`redis-server -`), so a
 * test password never shows in the process list.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { stopByPid } from './child-process.js';
import { createConnection, createServer } from 'node:net';

export interface RedisServer {
  port: number;
  pid: number;
  /** The rendezvous address of `name` on this server, with a user and password when given. */
  url(name: string, auth?: { user?: string; password: string }): string;
  stop(): Promise<void>;
}

const PORT_ATTEMPTS = 5;
const READY_TIMEOUT_MS = 10_000;

/** Starts redis-server on a free port of 127.0.0.1 (retrying if another process takes the port first). */
export async function startRedisServer(options: { password?: string } = {}): Promise<RedisServer> {
  let lastProblem = '';
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    const port = await freePort();
    const started = await tryStart(port, options.password);
    if (typeof started !== 'string') return started;
    lastProblem = started;
  }
  throw new Error(`redis-server did not start after ${PORT_ATTEMPTS} ports: ${lastProblem}`);
}

/** A port nothing listens on now (the kernel's pick for port 0, released at once). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port from listen(0)');
  return address.port;
}

async function tryStart(port: number, password: string | undefined): Promise<RedisServer | string> {
  const config = [
    `port ${port}`,
    'bind 127.0.0.1',
    'save ""',
    'appendonly no',
    'daemonize no',
    'loglevel warning',
    ...(password === undefined ? [] : [`requirepass ${password}`]),
  ].join('\n');
  const child = spawn('redis-server', ['-'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`cannot run redis-server: ${error.message}`));
    child.once('exit', (code, signal) =>
      resolve(`redis-server exited (${code ?? signal}): ${output.trim().slice(-300)}`),
    );
  });
  // A child that failed to start closes its stdin: the exit (or error) above is the report.
  child.stdin.on('error', () => undefined);
  child.stdin.end(`${config}\n`);
  if (child.pid === undefined) return exited.then((problem) => Promise.reject(new Error(problem)));
  const ready = await Promise.race([waitForReady(port, password, child), exited]);
  if (ready !== true) {
    await stopByPid(child, 5000);
    return ready;
  }
  const pid = child.pid;
  return {
    port,
    pid,
    url: (name, auth) => {
      const userInfo =
        auth === undefined ? '' : `${encodeURIComponent(auth.user ?? '')}:${encodeURIComponent(auth.password)}@`;
      return `redis://${userInfo}127.0.0.1:${port}/${name}`;
    },
    stop: () => stopByPid(child, 5000),
  };
}

/**
 * true once the server on `port` answers and is this child (its INFO names the child's PID: a
 * server another test started on the same port in the meantime is not ours); a message when time
 * runs out.
 */
async function waitForReady(port: number, password: string | undefined, child: ChildProcess): Promise<true | string> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  // Ends once the child has exited too (its exit is then the reason the caller reports).
  while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
    const answered = await processIdOn(port, password);
    if (answered === child.pid) return true;
    if (answered !== null) return `port ${port} is answered by another redis-server (pid ${answered})`;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return `no answer on port ${port} within ${READY_TIMEOUT_MS} ms`;
}

/** The process_id the server on `port` reports, or null when nothing answers (yet). */
function processIdOn(port: number, password: string | undefined): Promise<number | null> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    socket.setTimeout(1000, () => socket.destroy());
    socket.once('connect', () => {
      const auth =
        password === undefined ? [] : [`*2\r\n$4\r\nAUTH\r\n$${Buffer.byteLength(password)}\r\n${password}\r\n`];
      socket.write([...auth, '*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n'].join(''));
    });
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      const match = /process_id:(\d+)/.exec(reply);
      if (match !== null) {
        socket.destroy();
        resolve(Number(match[1]));
      }
    });
    socket.once('error', () => resolve(null));
    socket.once('close', () => resolve(null));
  });
}
