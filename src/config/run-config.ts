/**
 * The resolved configuration of one `servebench run`: flags, manifest tier and defaults merged and
 * checked in the reference's order (docs/protocol.md#validation-order), first failure wins, before any request.
 * Every input file is read and validated here too (src/config/input-files.ts), so a bad one is
 * refused before the runner sends anything.
 */
import type { ReasoningParser } from '../record/reasoning-parser.js';
import type { Endpoint } from '../record/endpoint.js';
import { resolve } from 'node:path';
import { UsageError } from '../util/errors.js';
import { checkWriteTargets } from '../util/write-targets.js';
import { checkBaseUrl } from './base-url.js';
import { loadManifestTier } from './manifest.js';
import { resolveThinking, checkModelFamily, type ThinkingControls, type ThinkingMode } from '../workload/thinking.js';
import type { FlagValue } from './flag-value.js';
import type { ContextBucket } from '../workload/context-plan.js';
import { parseContextBuckets } from './buckets-file.js';
import type { PrefixPolicy } from '../workload/skeleton.js';
import type { ArrivalProcess } from '../schedule/arrivals.js';
import { parseTokenizerSpec } from '../workload/tokenizer/index.js';
import { parseSlo, type Slo } from '../metrics/slo.js';
import { readApiKeyEnv, readApiKeyFile } from './api-key.js';
import { loadRunInputs, type RunInputs } from './input-files.js';
import { parseServerMetrics, type ServerMetricsChoice } from './server-metrics.js';
import { loadTools } from './tools-file.js';
import { TOOL_ENDPOINTS, type ToolDefinition } from '../workload/tools.js';
import { hasToolTurns } from '../workload/conversation.js';
import { resolveConversations, type ConversationConfig } from './conversation-flags.js';

/**
 * Everything a run needs, resolved and parsed, grouped by concern. `target.baseUrl` null means:
 * start the built-in simulator. How the CLI prints (`--json`, `--quiet`, `--dry-run`) is no part of
 * it: those belong to the command.
 */
export interface RunConfig {
  /** What is measured, and what the result says about it. */
  target: TargetConfig;
  /** How requests are started and how long the run lasts. */
  load: LoadConfig & LoadCommon;
  /** What each request sends. */
  workload: WorkloadConfig;
  /** The client's bounds on one request and how it holds its connections. */
  client: ClientConfig;
  /** The files the run writes. */
  output: OutputConfig;
  /** `--slo`, parsed, or null. */
  slo: Slo | null;
  /** The content of `--dataset` and `--trace`, read and checked before anything is sent (`--sim-config` is the CLI's: cli/embedded-sim.ts). */
  inputs: RunInputs;
}

export interface TargetConfig {
  baseUrl: string | null;
  model: string | null;
  apiKeyEnv: string | null;
  /** Absolute path of `--api-key-file`, or null. The key itself is never part of the configuration. */
  apiKeyFile: string | null;
  engine: string | null;
  gpu: string | null;
  tier: string | null;
  manifest: string | null;
  sourceRecipe: string | null;
  /** `--max-model-len`: the window to assume (0: ask the server). */
  maxModelLen: number;
  /** Absolute path of `--sim-config` (only without a base URL), or null. */
  simConfig: string | null;
  /** `--server-metrics`: where the server's own metrics are scraped during the run (src/scrape/). */
  serverMetrics: ServerMetricsChoice;
  /** `--scrape-interval`: seconds between two scrapes. */
  scrapeIntervalS: number;
}

/** What every load model shares. */
export interface LoadCommon {
  requests: number;
  /** `--concurrency` (or `--burst`) as given, recorded even when an open loop ignores it. */
  concurrency: number;
  burst: number;
  /** True when --requests was typed (a duration alone bounds the run by time only). */
  requestsGiven: boolean;
  /** Warm-up requests excluded from every metric: the first N, or those started in the first S seconds. */
  warmup: { requests: number } | { seconds: number } | null;
  onInterrupt: 'drain' | 'cancel';
}

export interface WorkloadConfig {
  sharedPrefixTokens: number;
  ctxTokens: number;
  seed: number;
  maxTokens: number;
  margin: number;
  thinking: ThinkingControls;
  /** `--tokenizer` spec: `server`, `hf:PATH`, `tiktoken:NAME` or `chars:R`. */
  tokenizer: string;
  /** Custom sampled distribution, or null for the reference buckets. */
  contextBuckets: ContextBucket[] | null;
  prefix: PrefixPolicy;
  cacheBust: boolean;
  /** Absolute dataset path, or null for synthetic prompts. */
  dataset: string | null;
  ignoreEos: boolean;
  minTokens: number;
  /** `--reasoning-parser`: how `<think>` reasoning inside content is told apart (client/think-tags.ts). */
  reasoningParser: ReasoningParser;
  /** `--endpoint`: which API the run speaks (record/endpoint.ts). */
  endpoint: Endpoint;
  /** Absolute path of `--tools`, or null. */
  toolsFile: string | null;
  /** The tools of `--tools`, read and checked before anything is sent; null without the flag. */
  tools: ToolDefinition[] | null;
  /** A conversation run (`--turns N > 1` or `--conversations`), else null (docs/conversations.md). */
  conversations: ConversationConfig | null;
}

export interface ClientConfig {
  timeoutS: number;
  /** `--request-timeout`: whole-request deadline in seconds (each attempt), or null for none. */
  requestTimeoutS: number | null;
  /** `--max-response-bytes`: bound on one response body. */
  maxResponseBytes: number;
  /** `--max-line-bytes`: bound on one SSE line (and on one event's data). */
  maxLineBytes: number;
  /** `--retries`: further attempts of a request that failed with 429/503 or a connection error before any response byte. */
  retries: number;
  /** `--retry-max-wait`: longest wait before a retry, seconds (caps Retry-After). */
  retryMaxWaitS: number;
  /** Skip opening the connection pool before the timed part. */
  coldConnections: boolean;
  /** `--workers`: threads that stream the requests; 1 streams from the main thread (no worker). */
  workers: number;
}

export interface OutputConfig {
  /** Absolute result path, or null for the default `results/<run_id>.json`. */
  result: string | null;
  /** Absolute journal path, or null for the default beside the result. */
  journal: string | null;
}

/** The load model: closed loop (reference) or open loop (rate or trace). */
export type LoadConfig =
  | { kind: 'closed'; concurrency: number; rampS: number; durationS: number | null }
  | {
      kind: 'open';
      rate: number;
      arrival: ArrivalProcess;
      burstiness: number;
      maxConcurrency: number | null;
      rampS: number;
      durationS: number | null;
    }
  | { kind: 'trace'; file: string; maxConcurrency: number | null };

/** The largest prompt volume a run may plan, in tokens (docs/protocol.md#validation-order): n × planned ≤ 2^26. */
export const MAX_AGGREGATE_PROMPT_TOKENS = 67_108_864;

/** Merges and checks flags. `env` is read only for the API key's presence, never copied. */
export function resolveRunConfig(
  values: Record<string, FlagValue>,
  env: NodeJS.ProcessEnv,
  cwd: string,
  given: ReadonlySet<string> = new Set(),
): RunConfig {
  const str = (name: string): string | null => {
    const value = values[name];
    return typeof value === 'string' ? value : null;
  };
  const int = (name: string): number => values[name] as number;
  const output = str('output');
  const outputPath = output === null ? null : resolve(cwd, output);
  if (outputPath !== null) checkOutputPath(outputPath);

  let baseUrl = str('base-url');
  let model = str('model');
  let engine = str('engine');
  let gpu = str('gpu');
  const manifest = str('manifest');
  const tier = str('tier');
  let sourceRecipe: string | null = null;
  if (manifest !== null && tier === null) throw new UsageError('--manifest needs --tier');
  if (tier !== null && manifest === null)
    throw new UsageError('--tier needs --manifest (servebench has no bundled manifest)');
  if (manifest !== null && tier !== null) {
    const entry = loadManifestTier(resolve(cwd, manifest), tier);
    baseUrl ??= entry.baseUrl;
    model ??= entry.model;
    engine ??= entry.engine;
    gpu ??= entry.gpu;
    sourceRecipe = `${manifest}#${tier}`;
  }
  if (baseUrl !== null) checkBaseUrl(baseUrl);
  const serverMetrics = parseServerMetrics(str('server-metrics') ?? 'auto');
  const simConfig = str('sim-config');
  if (simConfig !== null && baseUrl !== null) {
    throw new UsageError(
      `--sim-config configures the built-in simulator only; it does not apply with ${str('base-url') !== null ? '--base-url' : `the --manifest tier's base URL`}`,
    );
  }

  const apiKeyEnv = str('api-key-env');
  const apiKeyFileFlag = str('api-key-file');
  if (apiKeyEnv !== null && apiKeyFileFlag !== null)
    throw new UsageError('--api-key-env and --api-key-file are two sources of one key; choose one');
  // Checked now (before any request); the key is read again when the run starts and never kept here.
  if (apiKeyEnv !== null) readApiKeyEnv(env, apiKeyEnv);
  const apiKeyFile = apiKeyFileFlag === null ? null : resolve(cwd, apiKeyFileFlag);
  if (apiKeyFile !== null) readApiKeyFile(apiKeyFile);
  const thinking = resolveThinking({
    thinkingMode: (str('thinking-mode') ?? undefined) as ThinkingMode | undefined,
    noThinking: values['no-thinking'] === true,
    reasoningEffort: str('reasoning-effort') ?? undefined,
  });
  if (model !== null) checkModelFamily(model, thinking);

  const maxTokens = int('max-tokens');
  const margin = int('margin');
  const maxModelLen = int('max-model-len');
  if (maxModelLen !== 0 && maxModelLen <= maxTokens + margin) {
    throw new UsageError(
      `--max-model-len ${maxModelLen} must exceed --max-tokens plus --margin (${maxTokens + margin})`,
    );
  }
  const ctxTokens = int('ctx-tokens');
  if (ctxTokens > 0 && ctxTokens < 32) throw new UsageError('--ctx-tokens must be 0 (sampled) or at least 32');
  const burst = int('burst');
  const bucketsText = str('context-buckets');
  if (bucketsText !== null && ctxTokens > 0)
    throw new UsageError('--context-buckets samples the plan; it cannot be combined with --ctx-tokens');
  const contextBuckets = bucketsText === null ? null : parseContextBuckets(bucketsText, (p) => resolve(cwd, p));
  const dataset = str('dataset');
  if (dataset !== null && (ctxTokens > 0 || bucketsText !== null)) {
    throw new UsageError(
      '--dataset brings its own prompts; it cannot be combined with --ctx-tokens or --context-buckets',
    );
  }
  const minTokens = int('min-tokens');
  if (minTokens > maxTokens) throw new UsageError(`--min-tokens ${minTokens} exceeds --max-tokens ${maxTokens}`);
  const load = resolveLoad(values, str, cwd, burst, given);
  if (load.kind === 'trace' && (dataset !== null || ctxTokens > 0 || bucketsText !== null)) {
    throw new UsageError(
      '--trace brings its own context sizes; it cannot be combined with --dataset, --ctx-tokens or --context-buckets',
    );
  }
  const requestsGiven = given.has('requests') || burst > 0;
  const tokenizer = str('tokenizer') ?? 'server';
  parseTokenizerSpec(tokenizer); // a bad spec fails here, before any network use
  const warmup = parseWarmup(str('warmup'));
  // Flags first, then files: a bad flag is named even when a file is bad too.
  const simConfigPath = simConfig === null ? null : resolve(cwd, simConfig);
  const datasetPath = dataset === null ? null : resolve(cwd, dataset);
  const endpoint = (str('endpoint') ?? 'chat') as Endpoint;
  const toolsPath = str('tools') === null ? null : resolve(cwd, str('tools') as string);
  if (toolsPath !== null && !TOOL_ENDPOINTS.includes(endpoint))
    throw new UsageError(`--tools needs --endpoint ${TOOL_ENDPOINTS.join(', ')}; ${endpoint} requests carry no tools`);
  const conversations = resolveConversations(values, str, cwd, given, {
    dataset: dataset !== null,
    sized: ctxTokens > 0 || bucketsText !== null,
    load,
    burst,
    requestsGiven,
  });
  const inputs = loadRunInputs({
    dataset: datasetPath,
    trace: load.kind === 'trace' ? load.file : null,
    ...(conversations?.file != null ? { conversations: conversations.file } : {}),
  });
  // An agent trace's tool steps answer the calls of the reply before them: the server must be offered tools to call.
  if (toolsPath === null && inputs.conversations != null && hasToolTurns(inputs.conversations))
    throw new UsageError(
      '--conversations: the file has agent sessions with tool results; give the tools they answer with --tools FILE (docs/agent-traces.md)',
    );
  const concurrency = burst > 0 ? burst : int('concurrency');
  return {
    target: {
      baseUrl,
      model,
      apiKeyEnv,
      apiKeyFile,
      engine,
      gpu,
      tier,
      manifest,
      sourceRecipe,
      maxModelLen,
      simConfig: simConfigPath,
      serverMetrics,
      scrapeIntervalS: typeof values['scrape-interval'] === 'number' ? values['scrape-interval'] : 1,
    },
    load: {
      ...load,
      requests: burst > 0 ? burst : int('requests'),
      concurrency,
      burst,
      requestsGiven,
      warmup,
      onInterrupt: str('on-interrupt') === 'cancel' ? 'cancel' : 'drain',
    },
    workload: {
      sharedPrefixTokens: int('shared-prefix-tokens'),
      ctxTokens,
      seed: int('seed'),
      maxTokens,
      margin,
      thinking,
      tokenizer,
      contextBuckets,
      prefix: (str('prefix') ?? 'shared') as PrefixPolicy,
      cacheBust: values['cache-bust'] === true,
      dataset: datasetPath,
      ignoreEos: values['ignore-eos'] === true,
      minTokens,
      reasoningParser: (str('reasoning-parser') ?? 'auto') as ReasoningParser,
      endpoint,
      toolsFile: toolsPath,
      tools: toolsPath === null ? null : loadTools(toolsPath, str('tools') as string),
      conversations,
    },
    client: {
      timeoutS: values['timeout'] as number,
      requestTimeoutS: typeof values['request-timeout'] === 'number' ? values['request-timeout'] : null,
      maxResponseBytes: values['max-response-bytes'] as number,
      maxLineBytes: values['max-line-bytes'] as number,
      retries: values['retries'] as number,
      retryMaxWaitS: values['retry-max-wait'] as number,
      coldConnections: values['cold-connections'] === true,
      workers: typeof values['workers'] === 'number' ? values['workers'] : 1,
    },
    output: { result: outputPath, journal: str('journal') === null ? null : resolve(cwd, str('journal') as string) },
    slo: str('slo') === null ? null : parseSlo(str('slo') as string),
    inputs,
  };
}

function resolveLoad(
  values: Record<string, FlagValue>,
  str: (name: string) => string | null,
  cwd: string,
  burst: number,
  given: ReadonlySet<string>,
): LoadConfig {
  const rate = typeof values['rate'] === 'number' ? values['rate'] : null;
  const trace = str('trace');
  refuseIgnoredLoadFlags(given, rate !== null ? '--rate' : trace !== null ? '--trace' : null, str('arrival'));
  const durationS = typeof values['duration'] === 'number' ? values['duration'] : null;
  const maxConcurrency = typeof values['max-concurrency'] === 'number' ? values['max-concurrency'] : null;
  const rampS = typeof values['ramp'] === 'number' ? values['ramp'] : 0;
  if (burst > 0 && (rate !== null || trace !== null))
    throw new UsageError('--burst is a closed-loop mode; it cannot be combined with --rate or --trace');
  if (rate !== null && trace !== null) throw new UsageError('--rate and --trace are two open-loop sources; choose one');
  if (trace !== null) {
    if (durationS !== null || rampS > 0)
      throw new UsageError('--trace sets its own timing; --duration and --ramp do not apply');
    return { kind: 'trace', file: resolve(cwd, trace), maxConcurrency };
  }
  if (rate !== null) {
    return {
      kind: 'open',
      rate,
      arrival: (str('arrival') ?? 'poisson') as ArrivalProcess,
      burstiness: values['burstiness'] as number,
      maxConcurrency,
      rampS,
      durationS,
    };
  }
  if (maxConcurrency !== null)
    throw new UsageError('--max-concurrency caps an open loop; with a closed loop use --concurrency');
  return { kind: 'closed', concurrency: burst > 0 ? burst : (values['concurrency'] as number), rampS, durationS };
}

/**
 * Flags the chosen load model would silently ignore (`given`: the flags actually typed). A run
 * that is not what was asked for must not start.
 */
function refuseIgnoredLoadFlags(
  given: ReadonlySet<string>,
  open: '--rate' | '--trace' | null,
  arrival: string | null,
): void {
  if (open !== null && given.has('concurrency')) {
    throw new UsageError(
      `--concurrency sets a closed loop's workers; with ${open} use --max-concurrency N to cap the requests in flight`,
    );
  }
  if (open !== '--rate' && (given.has('arrival') || given.has('burstiness'))) {
    throw new UsageError(
      `--${given.has('arrival') ? 'arrival' : 'burstiness'} shapes open-loop arrivals; it needs --rate`,
    );
  }
  if (given.has('burstiness') && arrival !== 'gamma')
    throw new UsageError('--burstiness is the shape of gamma arrivals; it needs --arrival gamma');
  if (open === '--trace' && given.has('requests'))
    throw new UsageError('--requests does not apply to --trace: every line of the trace is one request');
}

/** `--warmup 10` (requests) or `--warmup 5s` (seconds). */
function parseWarmup(text: string | null): LoadCommon['warmup'] {
  if (text === null) return null;
  const match = /^(\d+(?:\.\d+)?)(s?)$/.exec(text.trim());
  if (match === null) throw new UsageError(`--warmup: expected a request count (10) or seconds (5s), got '${text}'`);
  const value = Number(match[1]);
  if (match[2] === 's') return { seconds: value };
  if (!Number.isInteger(value)) throw new UsageError(`--warmup: a request count must be whole, got '${text}'`);
  return value === 0 ? null : { requests: value };
}

/**
 * Output checks done before any request (docs/protocol.md#run-flags-and-defaults): a writable parent, no symlink, no special
 * file (util/write-targets.ts; the run's other files are checked with it in run-files.ts).
 */
function checkOutputPath(path: string): void {
  checkWriteTargets([{ flag: '--output', path, mode: 'replace' }]);
}
