/**
 * Plans that cannot measure anything are refused with one line naming the cause and the flag to
 * change, instead of failing every request one by one:
 * - a count warm-up that covers every planned request (known before anything is sent);
 * - a plan none of whose prompts can be built (every planned context is smaller than the prompt
 *   envelope: known once sizing has counted it, before any timed request);
 * - after the run, a time warm-up (or a count warm-up of a run bounded by time) that took every
 *   request sent.
 * A plan in which only some prompts cannot be built still runs: those requests are recorded as the
 * reference records them, as failures (`ValueError`, docs/protocol.md#success-and-failure).
 * Also here: the one warning that a fixed `--ctx-tokens` was clamped to the window's budget.
 */
import type { RunConfig } from '../config/run-config.js';
import { someRecord, type RequestRecords } from '../record/records.js';
import type { TooSmall, Workload } from '../workload/workload.js';
import { UsageError } from '../util/errors.js';
import type { LoadPlan } from './load-plan.js';
import type { RunPlan } from './run-plan.js';

/**
 * A chat-template overhead above this many tokens for one short user message is not a template:
 * the server's tokenize endpoint and its `usage.prompt_tokens` count different things.
 */
const IMPLAUSIBLE_OVERHEAD_TOKENS = 512;

/** A count warm-up must leave at least one planned request to measure. Throws {@link UsageError}. */
export function checkWarmupLeavesRequests(config: RunConfig, load: LoadPlan): void {
  const warmup = config.load.warmup;
  // A run bounded by time alone has no request count to compare with: checked after the run.
  if (warmup === null || !('requests' in warmup) || load.lazy || warmup.requests < load.requests) return;
  const what =
    config.load.kind === 'trace'
      ? `all ${load.requests} requests of the --trace file`
      : config.load.kind === 'open'
        ? `all ${load.requests} planned arrivals`
        : `all ${load.requests} planned requests (${config.load.burst > 0 ? '--burst' : '--requests'} ${load.requests})`;
  const raise =
    config.load.kind === 'trace'
      ? ''
      : config.load.kind === 'open'
        ? ' or raise --requests (or --duration)'
        : config.load.burst > 0
          ? ' or raise --burst'
          : ' or raise --requests';
  throw new UsageError(
    `--warmup ${warmup.requests} excludes ${what} from every figure, so nothing would be measured; lower --warmup${raise}`,
  );
}

/** Where the prompt budget came from, for the message. */
export interface BudgetContext {
  window: number | null;
  cap: number | null;
  /** `servebench.sizing` as recorded: its `overhead_tokens` and `method` explain an envelope inflated by calibration. */
  sizingInfo: Record<string, unknown>;
}

/**
 * Refuses a plan none of whose prompts can be built. Sizing is deferred in a run bounded by time:
 * then the first request is sized now, and when it cannot be built and no later request plans a
 * larger context, none can (later envelopes are never shorter: the tail line's index only grows).
 */
export async function checkPromptsBuildable(
  config: RunConfig,
  workload: Workload,
  load: LoadPlan,
  budget: BudgetContext,
): Promise<void> {
  if (workload.requests === 0) return;
  if (load.lazy) await workload.sizeAhead(0);
  const tooSmall = workload.tooSmall();
  if (tooSmall.requests === 0) return;
  const all = load.lazy
    ? tooSmall.requests === tooSmall.sized && workload.plannedTokens.every((t) => t <= tooSmall.largestTarget)
    : tooSmall.requests === workload.requests;
  if (!all) return;
  throw new UsageError(tooSmallMessage(config, tooSmall, budget));
}

function tooSmallMessage(config: RunConfig, tooSmall: TooSmall, budget: BudgetContext): string {
  const largest = tooSmall.largestTarget;
  const clamped = budget.cap !== null && budget.window !== null && largest === budget.cap;
  const windowText =
    config.target.maxModelLen > 0 ? `--max-model-len ${budget.window}` : `the server's window ${budget.window}`;
  const plan = clamped
    ? `the window leaves ${largest} tokens per prompt (${windowText} − --max-tokens ${config.workload.maxTokens} − --margin ${config.workload.margin}), less than`
    : config.load.kind === 'trace'
      ? `the largest --trace input length, ${largest} tokens, is less than`
      : config.workload.ctxTokens > 0
        ? `--ctx-tokens ${largest} is less than`
        : config.workload.contextBuckets !== null
          ? `the largest --context-buckets size, ${largest} tokens, is less than`
          : `the largest planned context, ${largest} tokens, is less than`;
  const need = tooSmall.envelopeTokens;
  const chars = config.workload.tokenizer.startsWith('chars:')
    ? ` at ${config.workload.tokenizer.slice(6)} characters per token`
    : '';
  const parts = chars === '' ? 'tail line and chat template' : 'tail line';
  const envelope = `the prompt envelope alone (${parts}, no body${need === null ? '' : `: ${need} tokens${chars}`})`;
  const atLeast = need === null ? '' : ` to at least ${need}`;
  const fix = clamped
    ? config.target.maxModelLen > 0
      ? 'raise --max-model-len or lower --max-tokens or --margin'
      : 'lower --max-tokens or --margin'
    : config.load.kind === 'trace'
      ? `use a trace whose input lengths are at least ${need ?? 'that'}`
      : config.workload.ctxTokens > 0
        ? `raise --ctx-tokens${atLeast}`
        : config.workload.contextBuckets !== null
          ? `raise the --context-buckets sizes${atLeast}`
          : 'raise the planned contexts';
  const head = `no planned prompt can be built: ${plan} ${envelope}`;
  const overhead = budget.sizingInfo['overhead_tokens'];
  if (typeof overhead === 'number' && overhead > IMPLAUSIBLE_OVERHEAD_TOKENS) {
    return (
      `${head}, ${overhead} of them the chat-template overhead the calibration probe measured (its usage.prompt_tokens minus the count of ${String(budget.sizingInfo['method'] ?? 'the tokenizer')}): ` +
      `if the server's tokenize endpoint and its usage disagree, size prompts with --tokenizer hf:PATH, tiktoken:ENCODING or chars:3.0; otherwise ${fix}`
    );
  }
  return `${head}; ${fix}`;
}

/** One warning when a fixed `--ctx-tokens` exceeds the window's prompt budget (every prompt is then clamped), else null. */
export function clampWarning(config: RunConfig, window: number | null, cap: number | null): string | null {
  if (
    config.workload.ctxTokens <= 0 ||
    cap === null ||
    window === null ||
    config.workload.ctxTokens <= cap ||
    config.load.kind === 'trace'
  )
    return null;
  const source = config.target.maxModelLen > 0 ? '--max-model-len' : "the server's window";
  return `--ctx-tokens ${config.workload.ctxTokens} does not fit the window: every prompt was clamped to ${cap} tokens (${source} ${window} − --max-tokens ${config.workload.maxTokens} − --margin ${config.workload.margin})`;
}

/**
 * After a run that was not interrupted: why nothing was measured when every request sent was a
 * warm-up request (the result then has no rows), else null.
 */
export function nothingMeasured(
  plan: Pick<RunPlan, 'warmup' | 'load_summary' | 'requests'>,
  results: RequestRecords,
  interrupted: boolean,
): string | null {
  const warmup = plan.warmup;
  if (interrupted || warmup === null || results.length === 0 || someRecord(results, (r) => r.warmup !== true))
    return null;
  const flag = 'seconds' in warmup ? `--warmup ${warmup.seconds}s` : `--warmup ${warmup.requests}`;
  const trace = plan.load_summary['mode'] === 'trace';
  const longer = trace ? '' : plan.requests.time_bounded ? ' or lengthen --duration' : ' or raise --requests';
  return `nothing was measured: all ${results.length} requests sent fell within ${flag}, which excludes them from every figure (the result has no rows); shorten --warmup${longer}`;
}
