/**
 * Shared parts of the end-to-end benchmarks: the simulator and the servebench CLI as separate
 * processes, each optionally pinned to its own core (taskset), and the client's peak resident
 * memory read from /proc while it runs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GroundTruth } from '../src/sim/ground-truth.js';
import { percentileSorted } from '../src/metrics/percentile.js';

/** dist/src/cli/main.js, seen from dist/bench/harness.js. */
export const CLI_PATH = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

/** True when processes can be pinned one per core (taskset present, at least two cores). */
export const CAN_PIN = availableParallelism() >= 2 && spawnSync('taskset', ['--version']).status === 0;

/** The command prefix that pins a process to `core`, or nothing when pinning is not possible or not wanted. */
function pinned(core: number | null): string[] {
  return core !== null && CAN_PIN ? ['taskset', '-c', String(core)] : [];
}

/**
 * `node ARGS` (a script and its arguments, node's own flags first), pinned to `core` when given
 * and possible, at `nice` when given, as the command and its arguments to spawn.
 */
export function nodeCommand(
  core: number | null,
  args: readonly string[],
  nice: number | null = null,
): [string, string[]] {
  // taskset and nice each exec the next, so the pid is node's and both settings reach every thread.
  const full = [...pinned(core), ...(nice === null ? [] : ['nice', '-n', String(nice)]), process.execPath, ...args];
  return [full[0]!, full.slice(1)];
}

function command(
  core: number | null,
  args: string[],
  nice: number | null = null,
  nodeArgs: readonly string[] = [],
): [string, string[]] {
  return nodeCommand(core, [...nodeArgs, CLI_PATH, ...args], nice);
}

export interface SimProcess {
  url: string;
  pid: number;
  /** Every kept record and the simulator's monotonic origin (`process.hrtime.bigint()` at its start). */
  groundTruth(): Promise<{ originNs: bigint; requests: GroundTruth[] }>;
  /** CPU seconds the simulator has used so far (user + system, from /proc), or null. */
  cpuSeconds(): number | null;
  stop(): Promise<void>;
}

/**
 * Starts `servebench sim` with `config` on 127.0.0.1:0 (pinned to `core` when given). Also used by
 * the tests (test/helpers/sim-process.ts), which keep the simulator's stderr out of their output.
 */
export function startSim(
  config: Record<string, unknown>,
  core: number | null,
  stderr: 'inherit' | 'ignore' = 'inherit',
): Promise<SimProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-bench-sim-'));
  const file = join(dir, 'sim.json');
  writeFileSync(file, JSON.stringify(config));
  const [cmd, args] = command(core, ['sim', '--config', file, '--port', '0']);
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', stderr] });
  // The config file is read at start-up; its directory goes when the simulator does.
  child.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`simulator did not start: ${out}`)), 20_000);
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}: ${out}`)));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match === null) return;
      clearTimeout(timer);
      const url = match[1]!.replace(/\/v1\/?$/, '');
      resolve({
        url,
        pid: child.pid!,
        groundTruth: async () => {
          const response = await fetch(`${url}/sim/ground-truth`);
          const body = (await response.json()) as { monotonic_origin_ns: string; requests: GroundTruth[] };
          return { originNs: BigInt(body.monotonic_origin_ns), requests: body.requests };
        },
        cpuSeconds: () => cpuSecondsOf(child.pid!),
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/**
 * The benches' simulator: `streams` batch slots, one token per `stepMs` whatever the batch (no
 * slowdown), near-instant prefill, and every request as long as its max_tokens, so the load is
 * exactly what the client asks for.
 */
export function fixedPaceSim(streams: number, stepMs: number, groundTruthLimit: number): Record<string, unknown> {
  return {
    max_num_seqs: streams,
    decode_step_ms: stepMs,
    decode_batch_slowdown: 0,
    prefill_tok_s: 10_000_000,
    output_tokens: { kind: 'max_tokens' },
    ground_truth_limit: groundTruthLimit,
  };
}

/**
 * `servebench run` as the benches run it against {@link fixedPaceSim}: a closed loop of `streams`,
 * `tokens` output tokens each (--ignore-eos), short prompts sized offline, quiet, into `output`.
 */
export function closedLoopArgs(
  simUrl: string,
  streams: number,
  requests: number,
  tokens: number,
  output: string,
): string[] {
  return [
    'run',
    '--base-url',
    `${simUrl}/v1`,
    '--concurrency',
    String(streams),
    '--requests',
    String(requests),
    '--max-tokens',
    String(tokens),
    '--ignore-eos',
    '--ctx-tokens',
    '256',
    '--prefix',
    'none',
    '--tokenizer',
    'chars:3.0',
    '--output',
    output,
    '--quiet',
  ];
}

export interface ClientRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Highest resident set size the client reached (VmHWM), MiB; null where /proc is not readable. */
  peakRssMiB: number | null;
  wallMs: number;
  /** User + system CPU seconds of the process at the last sample (up to 200 ms before it exited), or null. */
  cpuSeconds: number | null;
}

/**
 * Runs the servebench CLI (pinned to `core` when given, at `nice` when given, with `nodeArgs` for
 * node itself, e.g. `--cpu-prof`), sampling its peak RSS while it runs.
 */
export function runClient(
  args: string[],
  core: number | null,
  nice: number | null = null,
  nodeArgs: readonly string[] = [],
): Promise<ClientRun> {
  const [cmd, full] = command(core, args, nice, nodeArgs);
  return runMeasured(cmd, full);
}

/**
 * Runs `cmd args`, sampling its peak RSS while it runs; with `timeoutMs`, kills it (SIGKILL) when
 * it takes longer (`code` is then null).
 */
export function runMeasured(cmd: string, args: string[], timeoutMs: number | null = null): Promise<ClientRun> {
  const started = process.hrtime.bigint();
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let peakKiB: number | null = null;
  let cpuSeconds: number | null = null;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // VmHWM is the peak so far, so sampling every 200 ms misses nothing but the last moments before exit.
  const sample = (): void => {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (match) peakKiB = Math.max(peakKiB ?? 0, Number(match[1]));
    } catch {
      // the process has exited, or /proc is not there
    }
    cpuSeconds = cpuSecondsOf(child.pid!) ?? cpuSeconds;
  };
  const timer = setInterval(sample, 200);
  const deadline = timeoutMs === null ? null : setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      if (deadline !== null) clearTimeout(deadline);
      resolve({
        code,
        stdout,
        stderr,
        peakRssMiB: peakKiB === null ? null : peakKiB / 1024,
        wallMs: Number(process.hrtime.bigint() - started) / 1e6,
        cpuSeconds,
      });
    });
  });
}

/** Nearest-rank percentiles of `values` (the same definition as every servebench metric). */
export function percentiles(values: number[], levels: readonly number[]): number[] {
  const sorted = Float64Array.from(values).sort();
  return levels.map((q) => percentileSorted(sorted, q) ?? Number.NaN);
}

/** A fresh temporary directory for one benchmark's files. */
export function scratchDir(name: string): string {
  return mkdtempSync(join(tmpdir(), `servebench-bench-${name}-`));
}

/** User + system CPU seconds of process `pid` so far (/proc/PID/stat fields 14 and 15, at 100 ticks/s), or null. */
export function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}
