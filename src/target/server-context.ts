/**
 * What a token counter may need from the run to reach the server ({@link CounterContext}), and
 * its network half once it has one ({@link ServerContext}): the probes and tokenize calls of
 * calibration take the latter.
 */
import type { Dispatcher } from 'undici';
import type { ThinkingControls } from '../workload/thinking.js';
import type { Endpoint } from '../record/endpoint.js';

export { endpointUrl } from '../client/endpoint.js';

/** What a counter may need from the run. Only `server` and the overhead probe need the network. */
export interface CounterContext {
  /** The run's shared dispatcher (`createDispatcher`); without it (or `baseUrl`), nothing is probed. */
  dispatcher?: Dispatcher | undefined;
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:8000/v1`; null for offline use. */
  baseUrl?: string | null | undefined;
  /** Model id sent with probes and tokenize calls. */
  model?: string | undefined;
  /** Request headers (may carry `authorization`; never recorded). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Run start (`process.hrtime.bigint()`), used only to stamp probe results. */
  runStartNs?: bigint | undefined;
  /** Thinking controls of the run, so probes and template counts use the same chat template. */
  thinking?: ThinkingControls | undefined;
  /** Seconds without a byte before a probe or tokenize call fails (default 900, as `--timeout`). */
  timeoutS?: number | undefined;
  /**
   * The text of the overhead probe: ideally a short prompt of the run's own skeleton (same first
   * and last characters), e.g. `skeleton.render(0, 200)`. Default: reference filler + tail.
   */
  sampleText?: string | undefined;
  /** Aborts probes. */
  signal?: AbortSignal | undefined;
  /** The run's `--endpoint`: the usage probes go to it, so they count the prompt as the run's requests will (default chat). */
  endpoint?: Endpoint | undefined;
}

/** Thinking controls of a run that sets none. */
const NO_THINKING_CONTROLS: ThinkingControls = {
  mode: 'default',
  noThinking: false,
  reasoningEffort: null,
  chatTemplateKwargs: null,
  mechanism: 'none',
};

/** The network half of a {@link CounterContext}, when it has one. */
export interface ServerContext {
  dispatcher: Dispatcher;
  baseUrl: string;
  model: string;
  headers: Readonly<Record<string, string>>;
  runStartNs: bigint;
  thinking: ThinkingControls;
  timeoutS: number;
  signal: AbortSignal | undefined;
  endpoint: Endpoint;
}

/** The server part of `ctx`, or null when it cannot reach a server (no dispatcher, URL or model). */
export function serverContext(ctx: CounterContext): ServerContext | null {
  if (ctx.dispatcher === undefined || ctx.baseUrl === undefined || ctx.baseUrl === null || ctx.model === undefined)
    return null;
  return {
    dispatcher: ctx.dispatcher,
    baseUrl: ctx.baseUrl,
    model: ctx.model,
    headers: ctx.headers ?? {},
    runStartNs: ctx.runStartNs ?? process.hrtime.bigint(),
    thinking: ctx.thinking ?? NO_THINKING_CONTROLS,
    timeoutS: ctx.timeoutS ?? 900,
    signal: ctx.signal,
    endpoint: ctx.endpoint ?? 'chat',
  };
}
