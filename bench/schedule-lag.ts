/**
 * The open loop's schedule (issue 34): how late `servebench run` sends requests that are due, at
 * 40 requests a second (Poisson arrivals) against the built-in simulator, in `--runs` runs. Not
 * part of `npm run bench`. Build, then:
 *
 *   node dist/bench/schedule-lag.js                   # 5 runs of 400 requests (10 s each)
 *   node dist/bench/schedule-lag.js --runs 3 --requests 800
 *
 * The figure is the result's own `servebench.metrics.schedule.send_lag_ms_p99` (start_offset_ms
 * − scheduled_offset_ms of every measured request, docs/metrics: the `send_lag` family), with the
 * self-check's verdict of the same run, since a client the machine starves sends late for reasons
 * of the machine's. The goal: under 2 ms in every run on an idle machine. The last line is one
 * JSON object: `{"runs":[{"send_lag_ms_p50","send_lag_ms_p99","send_lag_max_ms","verdict"}],"under_2ms":N}`.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isEntryModule } from '../src/util/entry.js';
import { numberArg } from './args.js';
import { runClient, scratchDir } from './harness.js';

/** The goal for the p99 send lag, ms. */
const GOAL_MS = 2;

interface Options {
  runs: number;
  requests: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { runs: 5, requests: 400 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--runs') options.runs = numberArg(flag, value, 'count');
    else if (flag === '--requests') options.requests = numberArg(flag, value, 'count');
    else throw new Error(`unknown argument ${flag} (use --runs N, --requests N)`);
  }
  return options;
}

interface RunLag {
  send_lag_ms_p50: number;
  send_lag_ms_p99: number;
  send_lag_max_ms: number;
  verdict: string | null;
}

async function oneRun(dir: string, k: number, requests: number): Promise<RunLag> {
  const output = join(dir, `run-${k}.json`);
  const args = [
    'run',
    '--rate',
    '40',
    '--arrival',
    'poisson',
    '--seed',
    String(k),
    '--requests',
    String(requests),
    '--max-tokens',
    '16',
    '--ctx-tokens',
    '256',
    '--tokenizer',
    'chars:3.0',
    '--output',
    output,
    '--quiet',
  ];
  const run = await runClient(args, null);
  if (run.code !== 0) throw new Error(`servebench run: exit ${run.code}: ${run.stderr.slice(-400)}`);
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    servebench: { metrics: { schedule: Record<string, number> }; client?: { verdict?: string } };
  };
  const schedule = result.servebench.metrics.schedule;
  return {
    send_lag_ms_p50: schedule['send_lag_ms_p50']!,
    send_lag_ms_p99: schedule['send_lag_ms_p99']!,
    send_lag_max_ms: schedule['send_lag_max_ms']!,
    verdict: result.servebench.client?.verdict ?? null,
  };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const dir = scratchDir('schedule-lag');
  const runs: RunLag[] = [];
  try {
    for (let k = 0; k < options.runs; k++) {
      const lag = await oneRun(dir, k, options.requests);
      runs.push(lag);
      console.log(
        `run ${k + 1}: send lag p50 ${lag.send_lag_ms_p50.toFixed(2)} ms, p99 ${lag.send_lag_ms_p99.toFixed(2)} ms, max ${lag.send_lag_max_ms.toFixed(2)} ms; self-check ${lag.verdict}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const under = runs.filter((r) => r.send_lag_ms_p99 < GOAL_MS).length;
  console.log(`p99 under ${GOAL_MS} ms in ${under} of ${runs.length} runs`);
  console.log(JSON.stringify({ runs, under_2ms: under }));
}

if (isEntryModule(import.meta.url))
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
