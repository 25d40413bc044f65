/**
 * Picks how prompts are sized from `--tokenizer`: `chars:R` cuts at a fixed ratio (the
 * reference's bytes at 3.0); every other mode counts tokens the way the server will.
 */
import type { Dispatcher } from 'undici';
import type { RunConfig } from '../config/run-config.js';
import { fixedRatioSizer, type PromptSizer } from '../workload/workload.js';
import type { ChatMessage } from '../workload/dataset.js';

export interface SizingContext {
  dispatcher: Dispatcher;
  baseUrl: string;
  model: string;
  headers: Record<string, string>;
}

export interface Sizing {
  sizer: PromptSizer;
  countMessages?: (messages: ChatMessage[]) => Promise<number>;
  /** Recorded as `servebench.sizing`. */
  info: Record<string, unknown>;
}

/** Creates the sizer for the configured mode. */
export async function createSizer(config: RunConfig, _context: SizingContext): Promise<Sizing> {
  if (config.tokenizer.startsWith('chars:')) {
    const ratio = Number(config.tokenizer.slice('chars:'.length));
    return { sizer: fixedRatioSizer(ratio), info: { mode: config.tokenizer, calibrated: false } };
  }
  // Placeholder until the counting modes land: fall back to the reference ratio, and say so.
  return { sizer: fixedRatioSizer(3.0), info: { mode: 'chars:3.0', requested: config.tokenizer, calibrated: false } };
}
