/**
 * What the load model fixes before a run — request count, scheduled offsets, per-request sizes
 * for a trace — and the workload input built from it. Shared by the run and its dry run, so
 * both plan the same requests.
 */
import type { LoadBlock } from '../result/servebench-schema.js';
import type { RunConfig } from '../config/run-config.js';
import { planArrivals } from '../schedule/arrivals.js';
import type { ChatMessage, DatasetRow } from '../workload/dataset.js';
import {
  layoutConversations,
  sampleConversations,
  turnRows,
  type ConversationLayout,
  type ConversationSpec,
} from '../workload/conversation.js';
import { CHARS_PER_TOKEN } from '../workload/prompt.js';
import type { PromptSizer, WorkloadInput } from '../workload/workload.js';
import { UsageError } from '../util/errors.js';

/** Requests planned for a closed loop bounded by time alone: prompts are then sized as they go. */
const MAX_TIME_BOUNDED_REQUESTS = 1_000_000;

/** What the load model fixes before the run. */
export interface LoadPlan {
  requests: number;
  /** Open loop or trace: every request's scheduled offset (ms); null for a closed loop. */
  offsetsMs: number[] | null;
  /** A closed loop bounded by time alone: the request count is a ceiling and prompts are sized as they go. */
  lazy: boolean;
  plannedTokens?: number[];
  maxTokensPlan?: number[];
  summary: LoadBlock;
  /**
   * A conversation run: which conversation and turn each request index is, and for a
   * `--conversations` file each turn's new messages (one row per request index, in order).
   */
  conversations?: {
    layout: ConversationLayout;
    rows: DatasetRow[] | null;
    /** A conversation file's conversations as sampled (their turns sized in tokens are re-made once the counter is known). */
    specs?: ConversationSpec[];
  };
}

export function planLoad(config: RunConfig): LoadPlan {
  const single = singleRequestLoad(config);
  const conversations = config.workload.conversations;
  if (conversations === null) return single;
  // `requests` (or the arrivals) counted conversations: each becomes its turns, consecutive.
  const count = single.requests;
  let turns: number[];
  let rows: DatasetRow[] | null = null;
  let specs: ConversationSpec[] | undefined;
  if (conversations.file !== null) {
    const loaded = config.inputs.conversations;
    if (loaded == null) throw new Error('the --conversations file was not loaded with the configuration');
    const chosen = sampleConversations(loaded, count, config.workload.seed, conversations.turns);
    turns = chosen.map((c) => c.turns.length);
    rows = turnRows(chosen, CHARS_PER_TOKEN);
    specs = chosen;
  } else {
    turns = new Array<number>(count).fill(conversations.turns ?? 1);
  }
  const layout = layoutConversations(turns);
  const arrivals = single.offsetsMs;
  const n = layout.conversationId.length;
  return {
    ...single,
    requests: n,
    // A later turn's entry repeats its conversation's arrival (it is due when the previous reply ends).
    offsetsMs: arrivals === null ? null : layout.conversationId.map((c) => arrivals[c] ?? 0),
    summary: single.summary.mode === 'open' ? { ...single.summary, planned_requests: n } : single.summary,
    conversations: { layout, rows, ...(specs !== undefined ? { specs } : {}) },
  };
}

function singleRequestLoad(config: RunConfig): LoadPlan {
  const load = config.load;
  if (load.kind === 'trace') {
    // Read and checked by resolveRunConfig with the other input files.
    const entries = config.inputs.trace;
    if (entries === null) throw new Error('the --trace file was not loaded with the configuration');
    return {
      requests: entries.length,
      offsetsMs: entries.map((e) => e.offsetMs),
      lazy: false,
      plannedTokens: entries.map((e) => e.inputTokens),
      maxTokensPlan: entries.map((e) => e.outputTokens),
      summary: {
        mode: 'trace',
        file: load.file,
        requests: entries.length,
        max_concurrency: load.maxConcurrency,
        span_ms: entries[entries.length - 1]?.offsetMs ?? 0,
      },
    };
  }
  const timeOnly = load.durationS !== null && !config.load.requestsGiven;
  if (load.kind === 'open') {
    const offsetsMs = planArrivals({
      rate: load.rate,
      process: load.arrival,
      burstiness: load.burstiness,
      seed: config.workload.seed,
      rampS: load.rampS,
      maxRequests: timeOnly ? null : config.load.requests,
      durationS: load.durationS,
    });
    if (offsetsMs.length === 0) throw new UsageError('the arrival plan is empty: raise --duration or --rate');
    return {
      requests: offsetsMs.length,
      offsetsMs,
      lazy: false,
      summary: {
        mode: 'open',
        rate: load.rate,
        arrival: load.arrival,
        burstiness: load.burstiness,
        max_concurrency: load.maxConcurrency,
        ramp_s: load.rampS,
        duration_s: load.durationS,
        planned_requests: offsetsMs.length,
        ramp_end_ms: load.rampS * 1000,
      },
    };
  }
  return {
    requests: timeOnly ? MAX_TIME_BOUNDED_REQUESTS : config.load.requests,
    offsetsMs: null,
    lazy: timeOnly,
    summary: {
      mode: 'closed',
      concurrency: load.concurrency,
      ramp_s: load.rampS,
      duration_s: load.durationS,
      burst: config.load.burst,
    },
  };
}

/** The workload input for a run of `config` under `load`. */
export function workloadInput(
  config: RunConfig,
  load: LoadPlan,
  cap: number | null,
  sizer: PromptSizer,
  countMessages?: (messages: ChatMessage[]) => Promise<number>,
): WorkloadInput {
  return {
    requests: load.requests,
    ctxTokens: config.workload.ctxTokens,
    seed: config.workload.seed,
    cap,
    buckets: config.workload.contextBuckets,
    prefix: config.workload.prefix,
    sharedPrefixTokens: config.workload.sharedPrefixTokens,
    cacheBust: config.workload.cacheBust,
    maxTokens: config.workload.maxTokens,
    dataset: load.conversations?.rows ?? config.inputs.dataset,
    sizer,
    lazy: load.lazy,
    ...(load.conversations?.rows != null ? { presampled: true } : {}),
    ...(load.conversations !== undefined && load.conversations.rows === null
      ? {
          conversations: {
            turns: load.conversations.layout.turns,
            turnTokens: config.workload.conversations?.turnTokens ?? 0,
          },
        }
      : {}),
    ...(load.plannedTokens
      ? { plannedTokens: load.plannedTokens, ...(load.maxTokensPlan ? { maxTokensPlan: load.maxTokensPlan } : {}) }
      : {}),
    ...(countMessages ? { countMessages } : {}),
  };
}
