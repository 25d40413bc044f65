/**
 * `run`'s start-up (issue 34): the wall time from spawning `servebench run` to its first request
 * reaching the server, against the simulator as a separate process (its ground truth stamps each
 * request's headers on the same monotonic clock as this process: CLOCK_MONOTONIC is one clock for
 * every process on Linux). The run is the benches' closed loop (harness.ts) of one request of one
 * token, prompts sized offline (`--tokenizer chars:3.0`), with a given model and context length, so no probe but the server's
 * `/models` and `/metrics` and no tokenizer request come first. Median of `--runs` starts,
 * interleaved with another build's with `--previous`. Not part of `npm run bench`. Build, then:
 *
 *   node dist/bench/run-startup.js [--runs 11] [--previous OLD/dist/src/cli/main.js]
 *
 * The last line is one JSON object: `{"first_request_ms":…,"previous_first_request_ms":…}`.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { isEntryModule } from '../src/util/entry.js';
import { numberArg } from './args.js';
import { CLI_PATH, closedLoopArgs, scratchDir, startSim, type SimProcess } from './harness.js';

/** Ms from spawning `cli run …` to the simulator receiving its (only) request's headers. */
async function firstRequestMs(cli: string, sim: SimProcess, dir: string, k: number): Promise<number> {
  const before = (await sim.groundTruth()).requests.length;
  const spawnedNs = process.hrtime.bigint();
  const args = [
    ...closedLoopArgs(sim.url, 1, 1, 1, join(dir, `run-${k}.json`)),
    ...['--model', 'servebench-sim', '--max-model-len', '32768'],
  ];
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (piece: string) => (stderr += piece));
  const code = await new Promise<number | null>((done) => child.once('close', done));
  if (code !== 0) throw new Error(`${cli} run: exit ${code}: ${stderr.slice(-400)}`);
  const { originNs, requests } = await sim.groundTruth();
  const mine = requests.slice(before);
  if (mine.length !== 1) throw new Error(`expected one request at the simulator, saw ${mine.length}`);
  return Number(originNs + BigInt(mine[0]!.receivedNs) - spawnedNs) / 1e6;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  let runs = 11;
  let previous: string | null = null;
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === '--runs') runs = numberArg('--runs', argv[i + 1], 'count');
    else if (argv[i] === '--previous' && argv[i + 1] !== undefined) previous = argv[i + 1]!;
    else throw new Error(`unknown argument ${argv[i]} (use --runs N, --previous OLD/dist/src/cli/main.js)`);
  }
  const sim = await startSim({ decode_step_ms: 1, prefill_tok_s: 1e7, ground_truth_limit: 10_000 }, null, 'ignore');
  const dir = scratchDir('run-startup');
  const ours: number[] = [];
  const theirs: number[] = [];
  try {
    for (let k = 0; k < runs; k++) {
      ours.push(await firstRequestMs(CLI_PATH, sim, dir, k));
      if (previous !== null) theirs.push(await firstRequestMs(previous, sim, dir, k));
    }
  } finally {
    await sim.stop();
  }
  const figures = {
    first_request_ms: median(ours),
    previous_first_request_ms: previous === null ? null : median(theirs),
  };
  console.log(`spawn → first request at the server, median of ${runs}: ${figures.first_request_ms.toFixed(1)} ms`);
  if (figures.previous_first_request_ms !== null)
    console.log(`previous build: ${figures.previous_first_request_ms.toFixed(1)} ms`);
  console.log(JSON.stringify(figures));
}

if (isEntryModule(import.meta.url))
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
