/**
 * Memory per in-flight stream, and how many concurrent streams one client process holds
 * (bench/README.md). Not part of `npm test`. Build, then:
 *
 *   node dist/bench/stream-memory.js                       # 100, 1000 and 10000 streams
 *   node dist/bench/stream-memory.js --streams 1000 --tokens 100 --step-ms 50
 *
 * For each stream count S, the simulator (its own process, core 1) holds S sequences at once and
 * emits `--tokens` tokens per request at one per `--step-ms`; `servebench run` (core 0) keeps S
 * streams in flight (`--concurrency S --requests S`), so every stream is open at the same time
 * for most of the run. Printed per S: the client's peak resident memory (VmHWM), the requests
 * that succeeded, the wall time, and the client's self-check verdict. Memory per stream is the
 * growth of peak RSS from the smallest S, divided by the growth in streams: the process's fixed
 * cost (Node, modules, the result) cancels out.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isEntryModule } from '../src/util/entry.js';
import { numberArg, numberListArg } from './args.js';
import { CAN_PIN, closedLoopArgs, fixedPaceSim, runClient, scratchDir, startSim } from './harness.js';

export interface MemoryOptions {
  streams: number[];
  tokens: number;
  stepMs: number;
}

/** Every stream in flight for about five seconds: 50 tokens at 100 ms per token. */
export const MEMORY_DEFAULTS: MemoryOptions = { streams: [100, 1000, 10000], tokens: 50, stepMs: 100 };

function parseArgs(argv: string[]): MemoryOptions {
  const options: MemoryOptions = { ...MEMORY_DEFAULTS, streams: [...MEMORY_DEFAULTS.streams] };
  for (let i = 0; i < argv.length; i += 2) {
    const value = argv[i + 1] ?? '';
    switch (argv[i]) {
      case '--streams':
        options.streams = numberListArg('--streams', value, 'count').sort((a, b) => a - b);
        break;
      case '--tokens':
        options.tokens = numberArg('--tokens', value, 'count');
        break;
      case '--step-ms':
        options.stepMs = numberArg('--step-ms', value, 'positive');
        break;
      default:
        throw new Error(`unknown argument ${argv[i]} (use --streams, --tokens, --step-ms)`);
    }
  }
  return options;
}

export interface Measurement {
  streams: number;
  peakRssMiB: number;
  /** Requests that succeeded (all `streams` should). */
  completed: number;
}

/** Runs `streams` streams at once against the simulator, prints one line and returns the client's peak RSS. */
export async function measureStreamMemory(
  streams: number,
  options: MemoryOptions,
  print: (line: string) => void = console.log,
): Promise<Measurement> {
  const sim = await startSim(fixedPaceSim(streams, options.stepMs, 0), 1);
  try {
    const dir = scratchDir('memory');
    const output = join(dir, 'result.json');
    const run = await runClient(closedLoopArgs(sim.url, streams, streams, options.tokens, output), 0);
    if (run.code !== 0)
      throw new Error(
        `servebench run at ${streams} streams exited ${run.code}: ${run.stderr.trim().split('\n').pop() ?? ''}`,
      );
    const result = JSON.parse(readFileSync(output, 'utf8')) as {
      completed: number;
      servebench: { client: Record<string, number | boolean> };
    };
    const client = result.servebench.client;
    print(
      `${String(streams).padStart(6)} streams  peak RSS ${run.peakRssMiB?.toFixed(0) ?? '?'} MiB  ok ${result.completed}/${streams}  wall ${(run.wallMs / 1000).toFixed(1)} s  ` +
        `client_saturated=${String(client['client_saturated'])} verdict=${String(client['verdict'])} loop p99 ${Number(client['event_loop_delay_p99_ms']).toFixed(1)} ms ` +
        `stalls ${(Number(client['event_loop_stall_share']) * 100).toFixed(1)}% first tokens after stalls ${(Number(client['first_tokens_after_stalls_share']) * 100).toFixed(1)}% ` +
        `cpu ${(Number(client['cpu_fraction']) * 100).toFixed(0)}%`,
    );
    return { streams, peakRssMiB: run.peakRssMiB ?? Number.NaN, completed: result.completed };
  } finally {
    await sim.stop();
  }
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  console.log(
    `peak client memory with every stream in flight: ${options.tokens} tokens/request at ${options.stepMs} ms/token, ` +
      `${CAN_PIN ? 'sim pinned to core 1, client to core 0' : 'NOT pinned (taskset or a second core missing)'}`,
  );
  const measured: Measurement[] = [];
  for (const streams of options.streams) measured.push(await measureStreamMemory(streams, options));
  const base = measured[0]!;
  for (const m of measured.slice(1)) {
    const perStreamKiB = ((m.peakRssMiB - base.peakRssMiB) * 1024) / (m.streams - base.streams);
    console.log(`memory per in-flight stream, ${base.streams} → ${m.streams} streams: ${perStreamKiB.toFixed(1)} KiB`);
  }
}

if (isEntryModule(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
