/**
 * Runs the CLI the way the tests need it. `runCli` calls `main(argv, io)` in this process with an
 * I/O object of the test's own (output captured, signals delivered by the test): the fast tier's
 * way. `spawnCli` starts `node dist/src/cli/main.js` as a user would, for the tests whose subject
 * is the process itself (the package bin, a SIGKILL, environment-driven faults, thread priority).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { journaledSoFar } from './journal-lines.js';
import type { CliIO, InterruptSignal } from '../../src/cli/io.js';

/** Absolute path of dist/src/cli/main.js (this file is dist/test/helpers/cli.js). */
export const CLI_PATH = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A CliIO whose output is kept and whose interrupts the test sends with `signal()`. */
export interface TestIO extends CliIO {
  readonly out: string[];
  readonly err: string[];
  /** Delivers SIGINT or SIGTERM to every handler the command has subscribed. */
  signal(sig: InterruptSignal): void;
  /** How many signal handlers are subscribed now (a command must leave none behind). */
  subscribers(): number;
}

/** An in-process I/O object: captured output, the test's signals, the real wall clock unless given. */
export function testIO(
  options: {
    cwd?: string | undefined;
    env?: NodeJS.ProcessEnv | undefined;
    isTTY?: boolean;
    now?: () => Date;
    onOutput?: () => void;
  } = {},
): TestIO {
  const out: string[] = [];
  const err: string[] = [];
  const handlers = new Set<(signal: InterruptSignal) => void>();
  return {
    out,
    err,
    stdout: (text) => {
      out.push(text);
      options.onOutput?.();
    },
    stderr: (text) => {
      err.push(text);
      options.onOutput?.();
    },
    env: options.env ?? { ...process.env },
    cwd: options.cwd ?? process.cwd(),
    isTTY: options.isTTY ?? false,
    now: options.now ?? (() => new Date()),
    onSignal: (handler) => {
      // Each subscription is its own entry, as process.on would keep a second `on` of one function.
      const own = (signal: InterruptSignal): void => handler(signal);
      handlers.add(own);
      return () => handlers.delete(own);
    },
    signal: (sig) => {
      for (const handler of [...handlers]) handler(sig);
    },
    subscribers: () => handlers.size,
  };
}

/**
 * Runs `servebench ...args` in this process and collects its output. A command that has not
 * returned by `timeoutMs` is sent SIGTERM twice (cancel), then the promise rejects.
 */
export async function runCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; io?: TestIO } = {},
): Promise<CliRun> {
  const io = options.io ?? testIO({ cwd: options.cwd, env: options.env });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      io.signal('SIGTERM');
      io.signal('SIGTERM');
      reject(new Error(`servebench ${args.join(' ')}: no exit after ${options.timeoutMs ?? 120_000} ms`));
    }, options.timeoutMs ?? 120_000);
  });
  try {
    const code = await Promise.race([main(args, io), timedOut]);
    return { code, signal: null, stdout: io.out.join(''), stderr: io.err.join('') };
  } finally {
    clearTimeout(timer);
  }
}

/** Spawns `node main.js ...args` and collects its output (the process is the test's subject). */
export function spawnCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: options.env ?? { ...process.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Journaled request lines of `journal` so far (0 while it does not exist). */
function journaledRequests(journal: string): number {
  if (!existsSync(journal)) return 0;
  return journaledSoFar(journal);
}

/**
 * Runs `servebench ...args` in this process, waits until `lines` requests are journaled, then
 * sends `signal` `times` times, 100 ms apart, through the command's I/O.
 */
export async function runAndSignal(
  args: string[],
  journal: string,
  lines: number,
  signal: NodeJS.Signals,
  times = 1,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const io = testIO();
  const poll = setInterval(() => {
    if (journaledRequests(journal) < lines) return;
    clearInterval(poll);
    for (let i = 0; i < times; i++) setTimeout(() => io.signal(signal as InterruptSignal), i * 100);
  }, 20);
  try {
    const run = await runCli(args, { io });
    return { code: run.code, signal: null, stderr: run.stderr };
  } finally {
    clearInterval(poll);
  }
}

/**
 * Spawns `servebench ...args` as its own process, waits until `lines` requests are journaled, then
 * sends the process `signal` (SIGKILL: what no handler can see, so the process is the subject).
 */
export function spawnAndSignal(
  args: string[],
  journal: string,
  lines: number,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.resume();
    const poll = setInterval(() => {
      if (journaledRequests(journal) < lines) return;
      clearInterval(poll);
      child.kill(signal);
    }, 20);
    child.on('close', (code, sig) => {
      clearInterval(poll);
      resolve({ code, signal: sig, stderr });
    });
  });
}
