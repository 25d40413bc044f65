/**
 * Memory of a finished request in one run, and a soak of many short requests (issue 33). Not
 * part of `npm run bench` (the soak takes many minutes and writes a result of gigabytes). Build, then:
 *
 *   node dist/bench/run-memory.js                      # --marginal: 10,000 and 100,000 requests
 *   node dist/bench/run-memory.js --soak               # 2,000,000 requests, then `servebench validate`
 *   node dist/bench/run-memory.js --soak 500000 --cpu-prof /tmp/prof
 *
 * The simulator runs in its own process (core 1) with a fast configuration: 64 batch slots, a
 * 0.01 ms decode step, near-instant prefill, no ground-truth records and no prefix cache (so its
 * own memory stays flat however many requests it serves). `servebench run` (core 0) runs a closed
 * loop of 64 streams, 16 output tokens each (--ignore-eos), short prompts sized offline, quiet.
 *
 * `--marginal` runs 10,000 and then 100,000 requests with the same flags and prints each run's
 * peak RSS (VmHWM) and wall time; the memory a finished request adds is the growth of peak RSS
 * over the 90,000 extra requests (the process's fixed cost cancels out). `--soak N` runs N
 * requests once (32-token prompts, see SOAK_CTX_TOKENS), then `servebench validate` on the
 * result, and prints the run's peak RSS, wall time, the result's size and validate's exit status
 * and figures. `servebench run` takes at most 1,000,000 requests today, so it refuses the
 * default soak of 2,000,000 (the bench then stops with its one-line message). The last line is one JSON
 * object of the figures. The temporary directory is removed at the end.
 */
import { openSync, readSync, closeSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isEntryModule } from '../src/util/entry.js';
import { numberArg } from './args.js';
import {
  CAN_PIN,
  CLI_PATH,
  closedLoopArgs,
  fixedPaceSim,
  runClient,
  runMeasured,
  scratchDir,
  startSim,
  type ClientRun,
} from './harness.js';

/** Streams in flight (the closed loop's concurrency and the simulator's batch slots). */
const STREAMS = 64;
/** Output tokens a request. */
const TOKENS = 16;
/** The two run sizes of `--marginal`. */
const SMALL = 10_000;
const LARGE = 100_000;
const MIB = 1024 * 1024;

interface Options {
  mode: 'marginal' | 'soak';
  soakRequests: number;
  /** Where the client writes a V8 CPU profile (`node --cpu-prof`), or null. */
  cpuProfDir: string | null;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { mode: 'marginal', soakRequests: 2_000_000, cpuProfDir: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--marginal') options.mode = 'marginal';
    else if (arg === '--soak') {
      options.mode = 'soak';
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith('--')) options.soakRequests = numberArg('--soak', argv[++i], 'count');
    } else if (arg === '--cpu-prof') {
      const dir = argv[++i];
      if (dir === undefined || dir === '') throw new Error('--cpu-prof: expected a directory');
      options.cpuProfDir = resolve(dir);
    } else throw new Error(`unknown argument ${arg} (use --marginal, --soak [N], --cpu-prof DIR)`);
  }
  return options;
}

/** The fast simulator: fixed pace, and nothing kept per request (no ground truth, no prefix cache). */
const fastSim = (): Record<string, unknown> => ({
  ...fixedPaceSim(STREAMS, 0.01, 0),
  prefix_cache: { enabled: false },
});

/** `completed` and `failed` of a result file, read from its head (the keys are sorted; the file may be gigabytes). */
function resultCounts(file: string): { completed: number | null; failed: number | null } {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(MIB);
    const text = head.subarray(0, readSync(fd, head, 0, MIB, 0)).toString('utf8');
    const count = (key: string): number | null => {
      const match = new RegExp(`^  "${key}": (\\d+),?$`, 'm').exec(text);
      return match === null ? null : Number(match[1]);
    };
    return { completed: count('completed'), failed: count('failed') };
  } finally {
    closeSync(fd);
  }
}

interface RunFigures {
  requests: number;
  completed: number | null;
  failed: number | null;
  peak_rss_mib: number | null;
  wall_s: number;
  client_cpu_s: number | null;
  sim_cpu_s: number | null;
  result_bytes: number;
}

/**
 * The soak's prompts: a run plans at most 2^26 prompt tokens in all (plan/make-plan.ts), so
 * 2,000,000 requests fit with prompts of 32 tokens, not with the 256 of the marginal runs.
 */
const SOAK_CTX_TOKENS = 32;

/** `closedLoopArgs` with prompts of `ctxTokens` instead of its 256. */
function runArgs(simUrl: string, requests: number, output: string, ctxTokens: number): string[] {
  const args = closedLoopArgs(simUrl, STREAMS, requests, TOKENS, output);
  args[args.indexOf('--ctx-tokens') + 1] = String(ctxTokens);
  return args;
}

/** One `servebench run` of `requests` requests against a fresh simulator; the result stays at `output`. */
async function measureRun(requests: number, output: string, ctxTokens: number, options: Options): Promise<RunFigures> {
  const sim = await startSim(fastSim(), 1);
  let run: ClientRun;
  let simCpuS: number | null;
  try {
    const nodeArgs = options.cpuProfDir === null ? [] : ['--cpu-prof', '--cpu-prof-dir', options.cpuProfDir];
    run = await runClient(runArgs(sim.url, requests, output, ctxTokens), 0, null, nodeArgs);
    simCpuS = sim.cpuSeconds();
  } finally {
    await sim.stop();
  }
  if (run.code !== 0)
    throw new Error(
      `servebench run of ${requests} requests exited ${run.code}: ${run.stderr.trim().split('\n').pop() ?? ''}`,
    );
  const figures: RunFigures = {
    requests,
    ...resultCounts(output),
    peak_rss_mib: run.peakRssMiB,
    wall_s: run.wallMs / 1000,
    client_cpu_s: run.cpuSeconds,
    sim_cpu_s: simCpuS,
    result_bytes: statSync(output).size,
  };
  console.log(
    `${String(requests).padStart(9)} requests  peak RSS ${run.peakRssMiB?.toFixed(0) ?? '?'} MiB  ok ${figures.completed ?? '?'}/${requests}  ` +
      `wall ${figures.wall_s.toFixed(1)} s  client CPU ${run.cpuSeconds?.toFixed(1) ?? '?'} s  sim CPU ${simCpuS?.toFixed(1) ?? '?'} s  ` +
      `result ${(figures.result_bytes / 1e6).toFixed(0)} MB`,
  );
  return figures;
}

async function marginal(dir: string, options: Options): Promise<Record<string, unknown>> {
  const small = await measureRun(SMALL, join(dir, 'small.json'), 256, options);
  rmSync(join(dir, 'small.json'), { force: true });
  rmSync(join(dir, 'small.journal.jsonl'), { force: true });
  const large = await measureRun(LARGE, join(dir, 'large.json'), 256, options);
  const perRequest =
    small.peak_rss_mib === null || large.peak_rss_mib === null
      ? null
      : ((large.peak_rss_mib - small.peak_rss_mib) * MIB) / (LARGE - SMALL);
  console.log(
    `marginal memory of a finished request, ${SMALL} → ${LARGE} requests: ${perRequest?.toFixed(0) ?? '?'} bytes (goal: under 300)`,
  );
  return { mode: 'marginal', small, large, marginal_bytes_per_request: perRequest };
}

async function soak(dir: string, options: Options): Promise<Record<string, unknown>> {
  const output = join(dir, 'soak.json');
  const run = await measureRun(options.soakRequests, output, SOAK_CTX_TOKENS, options);
  // The journal has done its work once the result is written; only the result is validated.
  rmSync(join(dir, 'soak.journal.jsonl'), { force: true });
  const validate = await runMeasured(process.execPath, [CLI_PATH, 'validate', output]);
  console.log(
    `validate exit ${validate.code}: ${(validate.wallMs / 1000).toFixed(1)} s, peak RSS ${validate.peakRssMiB?.toFixed(0) ?? '?'} MiB` +
      (validate.code === 0 ? '' : `\n${validate.stderr.trim().split('\n').slice(0, 3).join('\n')}`),
  );
  const peakBytes = run.peak_rss_mib === null ? null : run.peak_rss_mib * MIB;
  console.log(
    `soak of ${options.soakRequests} requests: peak RSS ${peakBytes === null ? '?' : (peakBytes / 1e9).toFixed(2)} GB (goal: under 1 GB), ` +
      `${(run.wall_s / 60).toFixed(1)} min, result ${validate.code === 0 ? 'valid' : 'NOT valid'}`,
  );
  return {
    mode: 'soak',
    run,
    validate: { exit: validate.code, s: validate.wallMs / 1000, peak_rss_mib: validate.peakRssMiB },
  };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  console.log(
    `closed loop of ${STREAMS} streams, ${TOKENS} tokens a request, simulator at 0.01 ms a step; ` +
      `${CAN_PIN ? 'sim pinned to core 1, client to core 0' : 'NOT pinned (taskset or a second core missing)'}; ${process.version}`,
  );
  const dir = scratchDir('run-memory');
  try {
    const figures = options.mode === 'soak' ? await soak(dir, options) : await marginal(dir, options);
    console.log(JSON.stringify(figures));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isEntryModule(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
