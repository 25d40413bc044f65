/**
 * What every token-counting mode provides: a {@link PromptCounter} that says how many prompt
 * tokens the SERVER will count (usage.prompt_tokens) for a chat request whose single user message
 * is a given text, and the {@link CalibrationInfo} that records how that number is obtained.
 * The counters that reach a server or read a file are built by the caller (src/target/).
 */
import { EXIT } from '../../util/exit-codes.js';

/**
 * What one count costs: `local` counts in process (hf:, tiktoken:, chars:), `network` is one small
 * HTTP call (`/tokenize`), `request` is a real chat request (usage probes: the counter is `costly`).
 */
export type CountCost = 'local' | 'network' | 'request';

/** Counts prompt tokens as the server will. */
export interface PromptCounter {
  /** The canonical `--tokenizer` value, e.g. `server`, `hf:/models/q/tokenizer.json`, `chars:3.0`. */
  readonly mode: string;
  /**
   * True when each count is a real chat request to the server (usage probes). Callers must then
   * not count per request: see `createCountingSizer`, which fits a relation per planned size.
   */
  readonly costly: boolean;
  /**
   * False only for `chars:R`, whose "count" is the fixed-ratio estimate `round(length / R)`:
   * nothing is counted and no template overhead is included.
   */
  readonly calibrated: boolean;
  /**
   * Prompt tokens the server counts for `[{"role":"user","content": text}]`, chat-template
   * tokens included. Rejects with {@link TokenizerCalibrationError} only when counting itself
   * becomes impossible (the tokenize endpoint or the server went away). Usage probes answer
   * +Infinity when the server refused the prompt with HTTP 400/413 (taken as "longer than the
   * window"), so a search can step back below it.
   */
  count(text: string): Promise<number>;
  /**
   * Prompt tokens of a whole conversation (e.g. a dataset row), or null when this mode cannot
   * count one cheaply (usage probes: each count would be a real request; chars). Exact with a
   * `/tokenize(messages)` endpoint. Otherwise Σ content counts + the one-message overhead +
   * (n − 1) × a per-message overhead measured by one more probe on first use with several
   * messages; roles are not told apart, so that is exact only for templates whose per-message
   * tokens do not depend on the role (expect a token or two per message otherwise).
   */
  readonly countMessages: ((messages: readonly ChatTurn[]) => Promise<number>) | null;
  /**
   * A (text length, count) pair measured while calibrating (the sample), if any: a first guess of
   * the characters per token for a search, without counting again.
   */
  readonly sample: { chars: number; tokens: number } | null;
  /** How the count is made; `probes` and `counts` keep growing as the counter is used. */
  info(): CalibrationInfo;
}

/** One message of a conversation. */
export interface ChatTurn {
  role: string;
  content: string;
}

/** How a counter counts. Recorded in the result (`servebench.sizing`). */
export interface CalibrationInfo {
  /** The canonical `--tokenizer` value. */
  mode: string;
  /**
   * How a count is made: `server:/tokenize(messages)`, `server:/tokenize(prompt)+overhead`,
   * `server:/tokenize(content)+overhead`, `server:usage-probes`, `hf:sha256:<12 hex>+overhead`,
   * `tiktoken:o200k_base+overhead`, `chars:3.0`.
   */
  method: string;
  /** The tokenize endpoint used, or null. */
  tokenizeUrl: string | null;
  /**
   * Tokens added by the chat template (and BOS) to a one-user-message request, added to every
   * raw-text count; for `/tokenize(messages)` the (normally 0) correction found by the
   * verification probe; null when not applicable (usage probes count everything, chars counts nothing).
   */
  overheadTokens: number | null;
  /** Where `overheadTokens` came from. */
  overheadSource: 'probe' | 'endpoint-template' | 'assumed-zero' | 'not-applicable';
  /** Chat requests sent to calibrate so far (each one costs the server a prefill). */
  probes: number;
  /** Calls to `count` so far, and the time they took (ms, wall). */
  counts: number;
  countMs: number;
  /** Things the operator should know, e.g. `template overhead unknown: no server to probe, counted as 0`. */
  warnings: string[];
  /**
   * Local tokenizers: `on` while counts reuse the segments shared with the previous text,
   * `off` when a self-check found the tokenizer not additive at line breaks (every count is
   * then a whole count); `not-applicable` for the other modes.
   */
  incremental: 'on' | 'off' | 'not-applicable';
  /** Tokenizer description: file sha256 prefix, encoding name, ratio. */
  tokenizer: string | null;
}

/** Calibration became impossible (no tokenize endpoint and no usage, server unreachable, …). One line. */
export class TokenizerCalibrationError extends Error {
  readonly code = 'tokenizer-calibration';
  /** Prompts cannot be sized as asked before any measured request: a usage problem. */
  readonly exitCode = EXIT.usage;
  constructor(message: string) {
    super(message);
    this.name = 'TokenizerCalibrationError';
  }
}

/** Tolerance of the sizing promise: ±max(1 %, 8 tokens) of the planned context. */
export function toleranceTokens(target: number): number {
  return Math.max(0.01 * target, 8);
}

/** True when `counted` is within {@link toleranceTokens} of `target`. */
export function withinTolerance(counted: number, target: number): boolean {
  return Math.abs(counted - target) <= toleranceTokens(target);
}
