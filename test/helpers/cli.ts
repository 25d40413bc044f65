/** Runs the built CLI as a child process, the way a user would. */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Absolute path of dist/src/cli/main.js (this file is dist/test/helpers/cli.js). */
export const CLI_PATH = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Spawns `node main.js ...args` and collects its output. */
export function runCli(
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

/** Spawns a run, waits until `lines` requests are journaled, then signals it. */
export function runAndSignal(
  args: string[],
  journal: string,
  lines: number,
  signal: NodeJS.Signals,
  times = 1,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.resume();
    const poll = setInterval(() => {
      if (!existsSync(journal)) return;
      const count = readFileSync(journal, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"type":"request"')).length;
      if (count >= lines) {
        clearInterval(poll);
        for (let i = 0; i < times; i++) setTimeout(() => child.kill(signal), i * 100);
      }
    }, 20);
    child.on('close', (code, sig) => {
      clearInterval(poll);
      resolve({ code, signal: sig, stderr });
    });
  });
}
