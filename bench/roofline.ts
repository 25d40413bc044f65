/**
 * The client's roofline (issue 34): servebench's CPU per request and per streamed event against a
 * minimal Node client (minimal-client.ts) on the same loads, in the same run, and the events a
 * second each reaches on one core. Not part of `npm run bench` (it takes a few minutes). Build, then:
 *
 *   node dist/bench/roofline.js                         # the three loads, once each
 *   node dist/bench/roofline.js --loads burst --repeat 3
 *   node dist/bench/roofline.js --cpu-prof /tmp/prof    # a V8 CPU profile of each servebench run
 *   node dist/bench/roofline.js --previous OLD/dist/src/cli/main.js   # another build on the same loads too
 *
 * Each client runs pinned to core 0 and the server to core 1 (harness.ts). The loads:
 * - `request`: a closed loop of 64 streams of 16 output tokens against the simulator at a 0.01 ms
 *   decode step (its per-request cost dominates: the fast-test issue's "16-token load");
 * - `paced`: 256 streams of 100 tokens one every 10 ms (about 25,600 events a second), the
 *   simulator's pace, so the client idles between events (also reports servebench's self-check);
 * - `burst`: 16 streams against a stub (burst-server.ts) that writes each response's 1,000
 *   one-token events at once: parsing is the whole cost.
 * Each client runs each load at two sizes, `--runs` times each (3 by default, interleaved with the
 * other clients' runs), and its cost is the difference of the median CPU at each size over the
 * difference in requests (the marginal cost: start-up, planning, connection set-up and the
 * result's fixed part cancel out; they are reported on their own as `fixed_cpu_s`). CPU is the process's own user + system time of
 * every thread at exit (cpu-at-exit.ts). An event is one SSE `data:` event the minimal client
 * parsed (content events and the usage event; `[DONE]` is not counted).
 *
 * The last line is one JSON object: for each load, `cpu_us_per_request` and `cpu_us_per_event` of
 * each client, `ratio` (servebench / minimal), `events_per_cpu_s` of each (all-in: the work after
 * the run too), `run_events_per_s` (events over the larger run's own wall time, first request to
 * last end: the rate the client reads streams at on its core), and servebench's self-check verdicts.
 */
import { readFileSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isEntryModule } from '../src/util/entry.js';
import { numberArg } from './args.js';
import { cpuSecondsFrom } from './cpu-at-exit.js';
import {
  CAN_PIN,
  CLI_PATH,
  closedLoopArgs,
  fixedPaceSim,
  nodeCommand,
  runMeasured,
  scratchDir,
  startSim,
  type ClientRun,
} from './harness.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const PRELOAD = ['--import', pathToFileURL(join(HERE, 'cpu-at-exit.js')).href];

/** One load: the server it needs, its streams and tokens, and the two run sizes. */
interface Load {
  name: 'request' | 'paced' | 'burst';
  concurrency: number;
  tokens: number;
  sizes: [number, number];
  server: () => Promise<Server>;
}

interface Server {
  url: string;
  stop(): Promise<void>;
}

const LOADS: Load[] = [
  {
    name: 'request',
    concurrency: 64,
    tokens: 16,
    sizes: [4_000, 20_000],
    server: () => startSim({ ...fixedPaceSim(64, 0.01, 0), prefix_cache: { enabled: false } }, 1),
  },
  {
    name: 'paced',
    concurrency: 256,
    tokens: 100,
    sizes: [512, 2_048],
    server: () => startSim({ ...fixedPaceSim(256, 10, 0), prefix_cache: { enabled: false } }, 1),
  },
  { name: 'burst', concurrency: 16, tokens: 1000, sizes: [100, 600], server: () => startBurstServer(1000) },
];

/** Starts burst-server.js pinned to core 1. */
function startBurstServer(events: number): Promise<Server> {
  const script = join(HERE, 'burst-server.js');
  const [cmd, args] = nodeCommand(1, [script, '--events', String(events)]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((done, fail) => {
    let out = '';
    child.once('exit', (code) => fail(new Error(`burst server exited with ${code}: ${out}`)));
    child.stdout.setEncoding('utf8').on('data', (piece: string) => {
      out += piece;
      const match = /listening on (http:\/\/\S+)\/v1/.exec(out);
      if (match === null) return;
      done({
        url: match[1]!,
        stop: () =>
          new Promise((stopped) => {
            if (child.exitCode !== null) return stopped();
            child.once('exit', () => stopped());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

interface Measured {
  cpuS: number;
  events: number;
  wallS: number;
  verdict: string | null;
}

function cpuOf(run: ClientRun, what: string): number {
  const cpu = cpuSecondsFrom(run.stderr);
  if (run.code === null || cpu === null)
    throw new Error(`${what}: no CPU figure (exit ${run.code}): ${run.stderr.slice(-400)}`);
  return cpu;
}

async function runMinimal(url: string, load: Load, requests: number): Promise<Measured> {
  const script = join(HERE, 'minimal-client.js');
  const args = [
    ...PRELOAD,
    script,
    '--url',
    url,
    '--concurrency',
    String(load.concurrency),
    '--requests',
    String(requests),
    '--max-tokens',
    String(load.tokens),
  ];
  const run = await runMeasured(...nodeCommand(0, args));
  if (run.code !== 0) throw new Error(`minimal client: exit ${run.code}: ${run.stderr.slice(-400)}`);
  const out = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { events: number; failed: number; wall_s: number };
  if (out.failed > 0) throw new Error(`minimal client: ${out.failed} requests failed`);
  return { cpuS: cpuOf(run, 'minimal client'), events: out.events, wallS: out.wall_s, verdict: null };
}

async function runServebench(
  cli: string | null,
  url: string,
  load: Load,
  requests: number,
  dir: string,
  cpuProfDir: string | null,
): Promise<Measured> {
  const output = join(dir, `${load.name}-${requests}.json`);
  const nodeArgs = [...PRELOAD, ...(cpuProfDir === null ? [] : ['--cpu-prof', '--cpu-prof-dir', cpuProfDir])];
  const args = closedLoopArgs(`${url}`, load.concurrency, requests, load.tokens, output);
  // This build, or another build's CLI (`--previous`).
  const run = await runMeasured(...nodeCommand(0, [...nodeArgs, cli ?? CLI_PATH, ...args]));
  // Exit 1 is "some requests failed": the load must not fail any.
  if (run.code !== 0) throw new Error(`servebench run: exit ${run.code}: ${run.stderr.slice(-600)}`);
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    wall_clock_ms: number;
    servebench?: { client?: { verdict?: string } };
  };
  rmSync(output, { force: true });
  rmSync(`${output}.journal.jsonl`, { force: true });
  return {
    cpuS: cpuOf(run, 'servebench run'),
    events: Number.NaN,
    // The run's own wall time (first request to the last end), not the process's: start-up and
    // the assembly afterwards are not part of the rate at which the client reads a stream.
    wallS: result.wall_clock_ms / 1000,
    verdict: result.servebench?.client?.verdict ?? null,
  };
}

interface LoadFigures {
  load: string;
  events_per_request: number;
  minimal: ClientFigures;
  servebench: ClientFigures & { verdicts: (string | null)[] };
  ratio: number;
  /** With `--previous`: that build's figures and its ratio to the minimal client. */
  previous?: ClientFigures & { verdicts: (string | null)[]; ratio: number };
}

interface ClientFigures {
  cpu_us_per_request: number;
  cpu_us_per_event: number;
  events_per_cpu_s: number;
  /** CPU seconds of the smaller run beyond its requests' marginal cost: start-up and fixed work. */
  fixed_cpu_s: number;
  /**
   * Events a second of the larger run's own wall time (first request to last end) with the client
   * on one core: the rate at which it reads streams, without start-up or the work after the run.
   */
  run_events_per_s: number;
}

function figures(small: Measured, large: Measured, sizes: [number, number], eventsPerRequest: number): ClientFigures {
  const perRequest = (large.cpuS - small.cpuS) / (sizes[1] - sizes[0]);
  return {
    run_events_per_s: (eventsPerRequest * sizes[1]) / large.wallS,
    cpu_us_per_request: perRequest * 1e6,
    cpu_us_per_event: (perRequest / eventsPerRequest) * 1e6,
    events_per_cpu_s: eventsPerRequest / perRequest,
    fixed_cpu_s: small.cpuS - perRequest * sizes[0],
  };
}

/** The median of `runs`' CPU seconds, with the rest of the middle run's figures. */
function median(runs: Measured[]): Measured {
  const sorted = [...runs].sort((a, b) => a.cpuS - b.cpuS);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measureLoad(
  load: Load,
  dir: string,
  runs: number,
  cpuProfDir: string | null,
  previous: string | null,
): Promise<LoadFigures> {
  const server = await load.server();
  try {
    const [s0, s1] = load.sizes;
    const seen = {
      minimal: [[], []] as Measured[][],
      ours: [[], []] as Measured[][],
      previous: [[], []] as Measured[][],
    };
    // Interleaved, so a drift of the machine touches every client alike; each figure is the median of `runs`.
    for (let run = 0; run < runs; run++)
      for (const [k, size] of [s0, s1].entries()) {
        seen.minimal[k]!.push(await runMinimal(server.url, load, size));
        const profile = k === 1 && run === 0 ? cpuProfDir : null;
        seen.ours[k]!.push(await runServebench(null, server.url, load, size, dir, profile));
        if (previous !== null) seen.previous[k]!.push(await runServebench(previous, server.url, load, size, dir, null));
      }
    const [minimalSmall, minimalLarge] = seen.minimal.map(median) as [Measured, Measured];
    const [oursSmall, oursLarge] = seen.ours.map(median) as [Measured, Measured];
    const eventsPerRequest = minimalLarge.events / s1;
    const minimal = figures(minimalSmall, minimalLarge, load.sizes, eventsPerRequest);
    const ours = figures(oursSmall, oursLarge, load.sizes, eventsPerRequest);
    const verdicts = (all: Measured[][]): (string | null)[] => all.flat().map((m) => m.verdict);
    let before: LoadFigures['previous'];
    if (previous !== null) {
      const [previousSmall, previousLarge] = seen.previous.map(median) as [Measured, Measured];
      const figured = figures(previousSmall, previousLarge, load.sizes, eventsPerRequest);
      before = {
        ...figured,
        verdicts: verdicts(seen.previous),
        ratio: figured.cpu_us_per_request / minimal.cpu_us_per_request,
      };
    }
    return {
      load: load.name,
      events_per_request: eventsPerRequest,
      minimal,
      servebench: { ...ours, verdicts: verdicts(seen.ours) },
      ratio: ours.cpu_us_per_request / minimal.cpu_us_per_request,
      ...(before === undefined ? {} : { previous: before }),
    };
  } finally {
    await server.stop();
  }
}

interface Options {
  loads: Load[];
  repeat: number;
  /** Runs of each client at each size; each figure is their median. */
  runs: number;
  cpuProfDir: string | null;
  /** Another build's CLI (`--previous OLD/dist/src/cli/main.js`), measured on the same loads. */
  previous: string | null;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { loads: LOADS, repeat: 1, runs: 3, cpuProfDir: null, previous: null };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--loads') {
      const names = (value ?? '').split(',');
      const unknown = names.filter((name) => !LOADS.some((load) => load.name === name));
      if (unknown.length > 0) throw new Error(`--loads: unknown load ${unknown.join(', ')} (request, paced, burst)`);
      options.loads = LOADS.filter((load) => names.includes(load.name));
    } else if (flag === '--repeat') options.repeat = numberArg(flag, value, 'count');
    else if (flag === '--runs') options.runs = numberArg(flag, value, 'count');
    else if (flag === '--cpu-prof') options.cpuProfDir = resolve(value ?? '.');
    else if (flag === '--previous') options.previous = resolve(value ?? '');
    else
      throw new Error(
        `unknown argument ${flag} (use --loads request,paced,burst, --repeat N, --runs N, --cpu-prof DIR, --previous CLI)`,
      );
  }
  return options;
}

const us = (v: number): string => `${v.toFixed(1)} µs`;

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (!CAN_PIN)
    console.log('note: cannot pin processes to cores (taskset or a second core missing): figures are noisier');
  const dir = scratchDir('roofline');
  const all: LoadFigures[] = [];
  try {
    for (let round = 0; round < options.repeat; round++)
      for (const load of options.loads) {
        const f = await measureLoad(load, dir, options.runs, options.cpuProfDir, options.previous);
        all.push(f);
        console.log(
          `${f.load.padEnd(8)} ${f.events_per_request.toFixed(0)} events/request: ` +
            `minimal ${us(f.minimal.cpu_us_per_request)}/request, ${us(f.minimal.cpu_us_per_event)}/event, ${(f.minimal.events_per_cpu_s / 1000).toFixed(0)}k events/CPU-s; ` +
            `servebench ${us(f.servebench.cpu_us_per_request)}/request, ${us(f.servebench.cpu_us_per_event)}/event, ${(f.servebench.events_per_cpu_s / 1000).toFixed(0)}k events/CPU-s ` +
            `(fixed ${f.servebench.fixed_cpu_s.toFixed(2)} s vs ${f.minimal.fixed_cpu_s.toFixed(2)} s); ratio ${f.ratio.toFixed(2)}` +
            (f.load === 'burst'
              ? `; run rate ${(f.servebench.run_events_per_s / 1000).toFixed(0)}k events/s vs ${(f.minimal.run_events_per_s / 1000).toFixed(0)}k`
              : '') +
            (f.load === 'paced' ? `; self-check ${f.servebench.verdicts.join(', ')}` : ''),
        );
        if (f.previous !== undefined)
          console.log(
            `${''.padEnd(8)} previous build: ${us(f.previous.cpu_us_per_request)}/request, ${us(f.previous.cpu_us_per_event)}/event, ` +
              `${(f.previous.events_per_cpu_s / 1000).toFixed(0)}k events/CPU-s; ratio ${f.previous.ratio.toFixed(2)}` +
              (f.load === 'burst' ? `; run rate ${(f.previous.run_events_per_s / 1000).toFixed(0)}k events/s` : '') +
              (f.load === 'paced' ? `; self-check ${f.previous.verdicts.join(', ')}` : ''),
          );
      }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(JSON.stringify(all));
}

if (isEntryModule(import.meta.url))
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
