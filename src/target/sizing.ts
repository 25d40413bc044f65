/**
 * Picks how prompts are sized from `--tokenizer`: `chars:R` cuts at a fixed ratio (the
 * reference's exact bytes at 3.0, no counting); every other mode counts tokens the way the
 * server will (src/workload/tokenizer) and solves each prompt's length to its planned context.
 */
import type { SizingBlock } from '../result/servebench-schema.js';
import type { Dispatcher } from 'undici';
import type { RunConfig } from '../config/run-config.js';
import { fixedRatioSizer, type PromptSizer } from '../workload/workload.js';
import type { ChatMessage } from '../workload/dataset.js';
import { PromptSkeleton } from '../workload/skeleton.js';
import { createCountingSizer, parseTokenizerSpec } from '../workload/tokenizer/index.js';
import { createPromptCounter } from '../target/token-counter.js';
import { createCheckpoint } from '../util/cooperate.js';

export interface SizingContext {
  dispatcher: Dispatcher;
  baseUrl: string;
  model: string;
  headers: Record<string, string>;
  /** Aborting it ends calibration's requests and stops sizing with an `InterruptedError`. */
  signal?: AbortSignal | undefined;
}

export interface Sizing {
  sizer: PromptSizer;
  countMessages?: (messages: ChatMessage[]) => Promise<number>;
  /** What sizing did, recorded as `servebench.sizing`; call after the workload is built (probe and count totals grow while sizing). */
  info(): SizingBlock;
}

/** What sizing reads of the configuration (a saved plan carries the same fields). */
export type SizingSettings = Pick<RunConfig['workload'], 'tokenizer' | 'prefix' | 'sharedPrefixTokens' | 'thinking'> &
  Partial<Pick<RunConfig['workload'], 'endpoint'>> &
  Pick<RunConfig['client'], 'timeoutS'>;

/** Creates the sizer for the configured mode. */
export async function createSizer(config: SizingSettings, context: SizingContext): Promise<Sizing> {
  const spec = parseTokenizerSpec(config.tokenizer);
  // Sizing a million prompts is a loop that would otherwise keep the event loop (and a signal) waiting.
  const checkpoint = createCheckpoint(context.signal);
  if (spec.kind === 'chars') {
    return {
      sizer: interruptible(fixedRatioSizer(spec.ratio), checkpoint),
      info: () => ({ mode: config.tokenizer, method: `chars:${spec.ratio}`, calibrated: false }),
    };
  }
  // A short render of the real skeleton, so the template-overhead probe sees the same characters at its edges.
  const sample = new PromptSkeleton({
    prefix: config.prefix,
    sharedPrefixTokens: config.sharedPrefixTokens,
    salt: null,
  }).render(0, 600);
  const { counter } = await createPromptCounter(spec, {
    dispatcher: context.dispatcher,
    baseUrl: context.baseUrl,
    model: context.model,
    headers: context.headers,
    thinking: config.thinking,
    endpoint: config.endpoint ?? 'chat',
    timeoutS: config.timeoutS,
    sampleText: sample,
    signal: context.signal,
  });
  const sizer = createCountingSizer(counter);
  const countMessages = counter.countMessages;
  return {
    sizer: interruptible(sizer, checkpoint),
    ...(countMessages
      ? {
          countMessages: async (messages: ChatMessage[]) => {
            await checkpoint();
            return countMessages(messages);
          },
        }
      : {}),
    info: () => snakeKeys({ ...counter.info(), ...sizer.stats() }) as SizingBlock,
  };
}

/** `sizer`, passing `checkpoint` before each prompt. */
function interruptible(sizer: PromptSizer, checkpoint: () => Promise<void>): PromptSizer {
  return {
    method: sizer.method,
    size: async (index, targetTokens, skeleton, hint) => {
      await checkpoint();
      return sizer.size(index, targetTokens, skeleton, hint);
    },
  };
}

/**
 * Result keys are snake_case, and float-valued keys must end in a unit suffix so the writer
 * keeps them floats (src/result/pyjson.ts): `countMs` → `count_ms`, `tokensPerChar` → `tokens_per_char_ratio`.
 */
function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    let snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (snake === 'tokens_per_char') snake = 'tokens_per_char_ratio';
    out[snake] = snakeKeys(inner);
  }
  return out;
}
