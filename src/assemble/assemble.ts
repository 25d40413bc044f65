/**
 * From request results to the result document: the same function ends a run and rebuilds a
 * result from a journal, so both give identical files for identical records.
 * Warm-up requests are left out of every figure (and out of `requests`), so
 * `completed + failed = requests` always holds for what is reported.
 */
import { ENDPOINTS, type Endpoint } from '../record/endpoint.js';
import { pickRecords, recordFactsOf, type RequestRecords } from '../record/records.js';
import { emptyRecordFacts } from '../record/record-facts.js';
import type { RequestResult } from '../record/types.js';
import type { JournalStatus } from '../record/journal.js';
import { buildReferenceKeys, type CapacityResult, type RunMeta } from '../result/build.js';
import type {
  ClientBlock,
  ServebenchBlock,
  ServebenchStart,
  ShardsBlock,
  WorkersBlock,
} from '../result/servebench-schema.js';
import type { ServerMetricsBlock } from '../result/server-metrics-schema.js';
import { runChecks } from './run-checks.js';
import { clientWarning } from '../metrics/client-warning.js';
import { computeExtendedMetrics } from '../metrics/extended.js';
import type { RunPlan } from '../plan/run-plan.js';
import { retrySummary } from './retries.js';
import { toolCallsBlock } from '../metrics/tool-calls.js';
import { embeddingsBlock } from '../metrics/embeddings.js';
import { conversationsBlock } from './conversations.js';

/**
 * The part of a run known when it starts; JSON-serializable (it is the journal header's `run`).
 * Beside the result's metadata and the `servebench` block, it holds the plan's own slices as the
 * plan spells them (plan/run-plan.ts; docs/architecture.md, "The RunPlan"), never a renamed copy.
 * A header written in an earlier form is read through `readRunHeader` (header.ts).
 */
export interface RunHeader {
  /**
   * The result's reference metadata as known at the start: the plan's `meta` and the identity
   * facts the result records, spelled as the plan spells them, with the execution's run id, start
   * time, base URL and engine (the plan's, or `servebench-sim` for the built-in simulator).
   */
  meta: HeaderMeta;
  /** The `servebench` block as known at the start. */
  servebench: ServebenchStart;
  /** The plan's `enforce_calibration`. */
  enforce_calibration: boolean;
  /** The plan's `shape`: the load as planned, for the extended metrics (steady-state window, achieved versus target), and the parsed `--slo`. */
  shape: RunPlan['shape'];
  /** The plan's retry settings (`client`), for `servebench.retries`. */
  client: Pick<RunPlan['client'], 'retries' | 'retry_max_wait_s'>;
  /** A conversation run: each conversation's planned turns (docs/conversations.md); absent otherwise. */
  conversations?: Pick<NonNullable<RunPlan['conversations']>, 'turns'>;
}

/** `RunHeader.meta`. */
export type HeaderMeta = RunPlan['meta'] &
  Pick<RunPlan['identity'], 'model' | 'window_tokens' | 'prompt_set_id' | 'cache_policy'> & {
    run_id: string;
    started_at: string;
    base_url: string;
  };

/** The reference metadata of the result builder (result/build.ts), from the header's. */
function runMeta(meta: HeaderMeta): Omit<RunMeta, 'finishedAt' | 'wallSeconds' | 'requests' | 'promptSetId'> {
  return {
    runId: meta.run_id,
    startedAt: meta.started_at,
    baseUrl: meta.base_url,
    model: meta.model,
    engine: meta.engine,
    gpu: meta.gpu,
    tier: meta.tier,
    manifest: meta.manifest,
    sourceRecipe: meta.source_recipe,
    concurrency: meta.concurrency,
    contextTokens: meta.context_tokens,
    contextSeed: meta.context_seed,
    maxContextTokens: meta.window_tokens,
    maxTokens: meta.max_tokens,
    serveFlags: { ...meta.serve_flags },
    cachePolicy: meta.cache_policy,
  };
}

/** How the run ended. */
export interface RunEnd {
  wallSeconds: number;
  finishedAt: string;
  interrupted: boolean;
  /** The prompt-set id when it is only known at the end (prompts sized during the run). */
  promptSetId?: string;
  /** The client's self-check (src/execute/self-check.ts), when known: `servebench.client`. */
  client?: ClientBlock;
  /** `--workers N`: what each stream worker did (`servebench.workers`). */
  workers?: WorkersBlock;
  /** How the run's journal was written (`servebench.journal`); absent in a result rebuilt from one. */
  journal?: JournalStatus;
  /** Set by `rebuild` when the journal had no end line. */
  rebuiltFromJournal?: { wallEstimated: boolean };
  /** A result merged from shard files (shard/merge.ts): `servebench.shards`. */
  shards?: ShardsBlock;
  /** The server's own metrics scraped over the run (src/scrape/): `servebench.server_metrics`. */
  serverMetrics?: ServerMetricsBlock;
  /** Warnings known before assembly (a merge's: a missing shard, a shard's client that flagged itself), first in `servebench.warnings`. */
  warnings?: readonly string[];
}

/** What the assembly reads of every record besides the figures, gathered in one walk. */
interface RecordScan {
  /** The records that are not warm-up, in order (`results` itself when none is). */
  measured: RequestRecords;
  /**
   * Σ `connectionRetries` of the measured records and of the warm-up ones, in record order (the
   * order a sum over each set alone would take): measured requests resent once without --retries
   * because the server had closed their reused keep-alive socket as they went out
   * (client/stale-connection.ts; each lists that attempt in its row); warm-up requests' resends
   * are counted apart, like the requests themselves.
   */
  connectionRetries: number;
  warmupConnectionRetries: number;
  /** Measured requests that streamed reasoning inside `<think>` tags. */
  thinkTagRequests: number;
  /** Some measured request made tool calls. */
  toolCalls: boolean;
  /** Every record with earlier attempts (warm-up ones too), in order: `retrySummary` picks its `--retries` ones. */
  retried: RequestResult[];
}

/** One walk over the records' facts for {@link RecordScan} (a record is built only when it has rare parts). */
function scanRecords(results: RequestRecords): RecordScan {
  const positions = new Uint32Array(results.length);
  let kept = 0;
  const scan: Omit<RecordScan, 'measured'> = {
    connectionRetries: 0,
    warmupConnectionRetries: 0,
    thinkTagRequests: 0,
    toolCalls: false,
    retried: [],
  };
  const r = emptyRecordFacts();
  for (let i = 0; i < results.length; i++) {
    // Attempts and tool calls are rare parts: only a record that has some is built (records.ts recordFactsOf).
    const built = recordFactsOf(results, i, r, false);
    if (built?.attempts !== undefined && built.attempts.length > 0) scan.retried.push(built);
    if (r.warmup) {
      scan.warmupConnectionRetries += r.connectionRetries;
      continue;
    }
    positions[kept++] = i;
    scan.connectionRetries += r.connectionRetries;
    if (r.thinkTags) scan.thinkTagRequests++;
    if (built?.toolCalls !== undefined) scan.toolCalls = true;
  }
  return { measured: pickRecords(results, positions.subarray(0, kept)), ...scan };
}

/** The recorded `--endpoint`; a header written before the flag existed is chat. */
function endpointOf(value: string | undefined): Endpoint {
  return (ENDPOINTS as readonly string[]).includes(value ?? '') ? (value as Endpoint) : 'chat';
}

/** Assembles the result and returns it with the warnings it carries. */
export function assembleResult(
  header: RunHeader,
  results: RequestRecords,
  end: RunEnd,
): { result: CapacityResult; warnings: string[] } {
  const scan = scanRecords(results);
  const measured = scan.measured;
  const warmupCount = results.length - measured.length;
  const promptSetId = end.promptSetId ?? header.meta.prompt_set_id ?? 'unknown';
  const reference = buildReferenceKeys(
    {
      ...runMeta(header.meta),
      finishedAt: end.finishedAt,
      wallSeconds: end.wallSeconds,
      requests: measured.length,
      promptSetId,
      endpoint: endpointOf(header.servebench.config.endpoint),
    },
    measured,
  );
  // `--retries`: every retried attempt, by request (absent when retries were off and none happened).
  const retries = retrySummary(scan.retried, header.client.retries, header.client.retry_max_wait_s);
  // A conversation's later turn carries a history its plan did not size: only first turns are checked against their plan.
  const calibrated =
    header.conversations === undefined
      ? reference.request_timings
      : reference.request_timings.filter((row) => (row.turn_index ?? 0) === 0);
  const checks = runChecks(calibrated, measured, header.servebench.prompt_method, header.enforce_calibration);
  if (end.warnings !== undefined) checks.warnings.unshift(...end.warnings);
  if (end.client !== undefined) {
    const warning = clientWarning(end.client);
    if (warning !== null) checks.warnings.push(warning);
  }
  const servebench: ServebenchBlock = {
    ...header.servebench,
    interrupted: end.interrupted,
    requests_sent: results.length,
    warmup_requests: warmupCount,
    prompt_set_id: promptSetId,
    connection_retries: scan.connectionRetries,
    ...(warmupCount > 0 ? { warmup_connection_retries: scan.warmupConnectionRetries } : {}),
    ...(retries !== null ? { retries } : {}),
    ...(end.workers !== undefined ? { workers: end.workers } : {}),
    ...(end.journal !== undefined ? { journal: end.journal } : {}),
    ...(end.rebuiltFromJournal
      ? { rebuilt_from_journal: { wall_estimated: end.rebuiltFromJournal.wallEstimated } }
      : {}),
    ...(end.shards !== undefined ? { shards: end.shards } : {}),
    ...(end.serverMetrics !== undefined ? { server_metrics: end.serverMetrics } : {}),
    reasoning_parser: {
      setting: header.servebench.config.reasoning_parser ?? 'none',
      think_tag_requests: scan.thinkTagRequests,
    },
    ...(header.servebench.config.tools != null || scan.toolCalls ? { tool_calls: toolCallsBlock(measured) } : {}),
    ...(endpointOf(header.servebench.config.endpoint) === 'embeddings'
      ? { embeddings: embeddingsBlock(measured, end.wallSeconds) }
      : {}),
    ...(header.conversations !== undefined
      ? { conversations: conversationsBlock(header.conversations.turns, results, reference.request_timings) }
      : {}),
    metrics: computeExtendedMetrics(
      results,
      {
        mode: header.shape.mode,
        targetConcurrency: header.shape.target_concurrency,
        targetRate: header.shape.target_rate,
        rampEndMs: header.shape.ramp_end_ms,
        wallSeconds: end.wallSeconds,
        slo: header.shape.slo,
      },
      measured,
    ),
    calibration: checks.calibration,
    early_stops: checks.early_stops,
    warnings: checks.warnings,
    ...(end.client !== undefined ? { client: end.client } : {}),
  };
  return { result: { ...reference, servebench }, warnings: checks.warnings };
}
