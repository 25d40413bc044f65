/**
 * Planning cost with `--tokenizer server`: the time from calibration to the prompt set id for N
 * requests at one context size, against the simulator started in this process (its `/tokenize`),
 * as a run plans them (target/token-counter.ts → workload/tokenizer/sizer.ts → buildWorkload).
 * Not part of `npm test`. Build, then:
 *
 *   node dist/bench/plan-sizing.js                       # 100,000 requests at 512 tokens, sampled and exact
 *   node dist/bench/plan-sizing.js --requests 20000 --ctx-tokens 600 --baseline-requests 5000
 *   node dist/bench/plan-sizing.js --no-baseline --json  # one JSON line (bench/acceptance.ts)
 *   node dist/bench/plan-sizing.js --tokenizer tiktoken:cl100k_base --requests 20000
 *
 * The baseline, measured in the same run, is the same code with `verify: 'all'` (every prompt
 * solved exactly: what sizing did before sampling); `--baseline-requests` bounds it (its time per
 * request is what is compared). Every planned prompt is then counted by the simulator's tokenizer
 * (src/sim/tokenizer.ts, the server's truth: the chat template included), outside the timing, and
 * the prompts outside ±max(1 %, 8 tokens) of their plan are reported (with `--tokenizer server`
 * only: a local tokenizer is not the simulator's, so its prompts are not expected to land).
 */
import { isEntryModule } from '../src/util/entry.js';
import { createDispatcher } from '../src/client/transport.js';
import { startSim } from '../src/sim/server.js';
import { countChatTokens } from '../src/sim/tokenizer.js';
import { createPromptCounter } from '../src/target/token-counter.js';
import { createCountingSizer, withinTolerance, type SizerStats } from '../src/workload/tokenizer/index.js';
import { PromptSkeleton } from '../src/workload/skeleton.js';
import { buildWorkload } from '../src/workload/workload.js';
import { numberArg } from './args.js';

/** One planning, timed. */
export interface PlanTiming {
  tokenizer: string;
  verify: 'sample' | 'all';
  requests: number;
  ctxTokens: number;
  /** Calibration (endpoint detection, overhead probe) through the prompt set id, ms. */
  planMs: number;
  /** CPU time of this process over the same span (user + system; the simulator's answers included), ms: on a busy machine, the steadier figure. */
  planCpuMs: number;
  /** Full-prompt counts the sizer made (tokenize calls). */
  counts: number;
  promptsCounted: number;
  promptsVerified: number;
  promptsEstimated: number;
  verifyFailures: number;
  /** Prompts the simulator's tokenizer counts outside the tolerance of their plan (not timed); null unless `server`. */
  outsideTolerance: number | null;
  /** Largest |server count − plan| over every prompt; null unless `server`. */
  maxAbsError: number | null;
}

/** What one invocation measured: the sampled planning and, unless skipped, the exact baseline. */
export interface PlanSizingFigures {
  sampled: PlanTiming;
  baseline: PlanTiming | null;
  /** Baseline ms per request ÷ sampled ms per request (how many times faster), or null. */
  speedup: number | null;
}

interface Options {
  tokenizer: string;
  requests: number;
  ctxTokens: number;
  baselineRequests: number | null;
  json: boolean;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = {
    tokenizer: 'server',
    requests: 100_000,
    ctxTokens: 512,
    baselineRequests: null,
    json: false,
  };
  let baseline: number | null | undefined;
  for (let i = 0; i < argv.length; i++) {
    switch (argv[i]) {
      case '--tokenizer':
        options.tokenizer = argv[++i] ?? '';
        break;
      case '--requests':
        options.requests = numberArg('--requests', argv[++i], 'count');
        break;
      case '--ctx-tokens':
        options.ctxTokens = numberArg('--ctx-tokens', argv[++i], 'count');
        break;
      case '--baseline-requests':
        baseline = numberArg('--baseline-requests', argv[++i], 'count');
        break;
      case '--no-baseline':
        baseline = null;
        break;
      case '--json':
        options.json = true;
        break;
      default:
        throw new Error(
          `unknown argument ${argv[i]} (use --tokenizer, --requests, --ctx-tokens, --baseline-requests, --no-baseline, --json)`,
        );
    }
  }
  options.baselineRequests = baseline === undefined ? options.requests : baseline;
  return options;
}

/** Plans `requests` prompts of `ctxTokens` against a fresh simulator and times it. */
export async function timePlanSizing(
  requests: number,
  ctxTokens: number,
  verify: 'sample' | 'all',
  tokenizer = 'server',
): Promise<PlanTiming> {
  const sim = await startSim({});
  const dispatcher = createDispatcher({ connections: 4, idleTimeoutS: 60 });
  try {
    const skeletonOptions = { prefix: 'shared' as const, sharedPrefixTokens: 0 };
    const skeleton = new PromptSkeleton({ ...skeletonOptions, salt: null });
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    // As the run calibrates (runner/sizing.ts): the overhead probe is a short render of the run's skeleton.
    const { counter } = await createPromptCounter(tokenizer, {
      dispatcher,
      baseUrl: sim.url,
      model: sim.config.model,
      headers: { 'content-type': 'application/json' },
      sampleText: skeleton.render(0, 600),
    });
    const sizer = createCountingSizer(counter, { verify });
    const workload = await buildWorkload({
      requests,
      ctxTokens,
      seed: 0,
      cap: null,
      buckets: null,
      ...skeletonOptions,
      cacheBust: false,
      maxTokens: 16,
      dataset: null,
      sizer,
    });
    workload.promptSetId();
    const planMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const planCpuMs = (cpu.user + cpu.system) / 1000;
    const stats: SizerStats = sizer.stats();
    let outsideTolerance: number | null = null;
    let maxAbsError: number | null = null;
    for (let index = 0; tokenizer === 'server' && index < workload.requests; index++) {
      const messages = await workload.prepare(index);
      const served = countChatTokens(messages);
      outsideTolerance = (outsideTolerance ?? 0) + (withinTolerance(served, ctxTokens) ? 0 : 1);
      maxAbsError = Math.max(maxAbsError ?? 0, Math.abs(served - ctxTokens));
    }
    return {
      tokenizer,
      verify,
      requests,
      ctxTokens,
      planMs,
      planCpuMs,
      counts: stats.counts,
      promptsCounted: stats.promptsCounted,
      promptsVerified: stats.promptsVerified,
      promptsEstimated: stats.promptsEstimated,
      verifyFailures: stats.verifyFailures,
      outsideTolerance,
      maxAbsError,
    };
  } finally {
    await dispatcher.close();
    await sim.close();
  }
}

/** The sampled planning, then the exact baseline (unless `baselineRequests` is null). */
export async function measurePlanSizing(
  requests: number,
  ctxTokens: number,
  baselineRequests: number | null,
  tokenizer = 'server',
): Promise<PlanSizingFigures> {
  const sampled = await timePlanSizing(requests, ctxTokens, 'sample', tokenizer);
  const baseline =
    baselineRequests === null ? null : await timePlanSizing(baselineRequests, ctxTokens, 'all', tokenizer);
  const speedup = baseline === null ? null : baseline.planMs / baseline.requests / (sampled.planMs / sampled.requests);
  return { sampled, baseline, speedup };
}

function line(t: PlanTiming): string {
  return (
    `  ${t.verify === 'sample' ? 'sampled' : 'exact  '}  ${t.requests.toLocaleString('en-US').padStart(9)} requests  ${(t.planMs / 1000).toFixed(2).padStart(7)} s ` +
    `(${((t.planMs * 1000) / t.requests).toFixed(1)} µs/request; CPU ${(t.planCpuMs / 1000).toFixed(2)} s)  counts ${t.counts}: counted ${t.promptsCounted}, verified ${t.promptsVerified}, ` +
    `estimated ${t.promptsEstimated}, failed checks ${t.verifyFailures}` +
    (t.outsideTolerance === null
      ? ''
      : `; server count outside tolerance: ${t.outsideTolerance} (max |error| ${t.maxAbsError})`)
  );
}

async function main(argv: readonly string[]): Promise<void> {
  const options = parseArgs(argv);
  const figures = await measurePlanSizing(
    options.requests,
    options.ctxTokens,
    options.baselineRequests,
    options.tokenizer,
  );
  if (options.json) {
    process.stdout.write(`${JSON.stringify(figures)}\n`);
    return;
  }
  process.stdout.write(
    `planning ${options.requests.toLocaleString('en-US')} requests at ${options.ctxTokens} tokens, --tokenizer ${options.tokenizer} (simulator in process)\n`,
  );
  process.stdout.write(`${line(figures.sampled)}\n`);
  if (figures.baseline !== null) process.stdout.write(`${line(figures.baseline)}\n`);
  if (figures.speedup !== null)
    process.stdout.write(`  per request, exact ÷ sampled = ${figures.speedup.toFixed(1)}× \n`);
}

if (isEntryModule(import.meta.url)) {
  main(process.argv.slice(2)).then(
    () => process.exit(process.exitCode ?? 0),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(1);
    },
  );
}
