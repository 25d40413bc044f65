/**
 * The client's acceptance figures, measured and judged in one go: exits 1 when a figure misses its
 * target, so the figures are checked by something that fails, not only printed. Not part of
 * `npm test` (two of the four figures are speeds, which a loaded CI machine would fail at random).
 * Build, then run it on an otherwise idle machine:
 *
 *   npm run bench:check
 *   node dist/bench/acceptance.js --repeat 5 --levels 512,1024,2048,4096
 *
 * 1. TTFT error at 256 streams in step (timing-error.ts defaults: 100 tokens at 10 ms per token,
 *    6 rounds of which 2 warm up), `--repeat` runs (default 3): each must have p50 < 2 ms,
 *    p99 < 10 ms and the client not flagging itself.
 * 2. The load raised through `--levels` (default 512,1024,2048,4096 streams, same shape) until the
 *    client flags itself: it must, at some level, and must not have at 256.
 * 3. 1,000 concurrent streams (stream-memory.ts defaults): peak RSS under 300 MB.
 * 4. Summarising 1,000,000 synthetic records of 64 chunks (summarize.ts, in a process of its own):
 *    under 5 s. Run after the pinned runs, so its 2 GB heap cannot disturb them.
 * 5. Planning 100,000 requests at 512 tokens with `--tokenizer server` against the simulator
 *    (plan-sizing.ts, in a process of its own, no baseline): under 5 s, every prompt within
 *    tolerance as the simulator counts it.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isEntryModule } from '../src/util/entry.js';
import { numberArg, numberListArg } from './args.js';
import {
  accuracyCheck,
  memoryCheck,
  planSizingCheck,
  raiseUntilSaturated,
  renderChecks,
  saturationCheck,
  summaryCheck,
  TARGETS,
  type Check,
} from './checks.js';
import type { PlanSizingFigures } from './plan-sizing.js';
import { CAN_PIN } from './harness.js';
import { MEMORY_DEFAULTS, measureStreamMemory } from './stream-memory.js';
import type { SummaryTiming } from './summarize.js';
import { measureTimingError, TIMING_DEFAULTS, type RunFigures } from './timing-error.js';

interface Options {
  repeat: number;
  levels: number[];
}

function parseArgs(argv: string[]): Options {
  const options: Options = { repeat: 3, levels: [512, 1024, 2048, 4096] };
  for (let i = 0; i < argv.length; i += 2) {
    const value = argv[i + 1];
    switch (argv[i]) {
      case '--repeat':
        options.repeat = numberArg('--repeat', value, 'count');
        break;
      case '--levels':
        options.levels = numberListArg('--levels', value, 'count').sort((a, b) => a - b);
        break;
      default:
        throw new Error(`unknown argument ${argv[i]} (use --repeat, --levels)`);
    }
  }
  if (options.levels[0]! <= TARGETS.accuracyStreams) {
    throw new Error(
      `--levels: every level must be above the ${TARGETS.accuracyStreams} streams the accuracy is measured at, got ${options.levels[0]}`,
    );
  }
  return options;
}

/**
 * Times the summary in a process of its own, as `node dist/bench/summarize.js N` does, so the
 * check measures the summary alone and not also what this process's heap holds after the runs.
 */
function summaryInFreshProcess(records: number): SummaryTiming {
  const script = fileURLToPath(new URL('./summarize.js', import.meta.url));
  const child = spawnSync(process.execPath, [script, String(records), '--json'], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0)
    throw new Error(
      `summarize.js exited ${child.status ?? child.signal}: ${child.stderr.trim().split('\n').pop() ?? ''}`,
    );
  return JSON.parse(child.stdout.trim().split('\n').pop()!) as SummaryTiming;
}

/** Times planning in a process of its own, as `node dist/bench/plan-sizing.js --no-baseline --json` does. */
function planSizingInFreshProcess(requests: number): PlanSizingFigures {
  const script = fileURLToPath(new URL('./plan-sizing.js', import.meta.url));
  const child = spawnSync(process.execPath, [script, '--requests', String(requests), '--no-baseline', '--json'], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0)
    throw new Error(
      `plan-sizing.js exited ${child.status ?? child.signal}: ${child.stderr.trim().split('\n').pop() ?? ''}`,
    );
  return JSON.parse(child.stdout.trim().split('\n').pop()!) as PlanSizingFigures;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  console.log(
    `performance acceptance checks, ${CAN_PIN ? 'simulator pinned to core 1, client to core 0' : "NOT pinned (taskset or a second core missing): figures are not the targets' setting"}`,
  );
  const checks: Check[] = [];
  const timing = { ...TIMING_DEFAULTS };

  console.log(`\n1. TTFT error at ${TARGETS.accuracyStreams} streams, ${options.repeat} runs`);
  const calm: RunFigures[] = [];
  for (let i = 0; i < options.repeat; i++) calm.push(await measureTimingError(TARGETS.accuracyStreams, timing));
  checks.push(...calm.map(accuracyCheck));

  console.log(`\n2. load raised through ${options.levels.join(', ')} streams until the client flags itself`);
  const raise = await raiseUntilSaturated(options.levels, (streams) => measureTimingError(streams, timing));
  checks.push(saturationCheck(calm, raise));

  console.log(`\n3. ${TARGETS.memoryStreams} concurrent streams`);
  checks.push(memoryCheck(await measureStreamMemory(TARGETS.memoryStreams, MEMORY_DEFAULTS)));

  console.log(`\n4. summarising ${TARGETS.summaryRecords.toLocaleString('en-US')} records`);
  checks.push(summaryCheck(summaryInFreshProcess(TARGETS.summaryRecords)));

  console.log(`\n5. planning ${TARGETS.planRequests.toLocaleString('en-US')} requests with --tokenizer server`);
  checks.push(planSizingCheck(planSizingInFreshProcess(TARGETS.planRequests).sampled));

  console.log(`\n${renderChecks(checks)}`);
  if (checks.some((c) => !c.pass)) process.exitCode = 1;
}

if (isEntryModule(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
