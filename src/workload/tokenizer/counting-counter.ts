/**
 * The {@link PromptCounter} every mode builds on: a raw count (local, a `/tokenize` call or a
 * usage probe, provided by the caller) plus a fixed template overhead, with usage statistics.
 * Nothing here reaches the network or a file: the raw count is the caller's.
 */
import type { IncrementalCounter } from './incremental.js';
import type { CalibrationInfo, ChatTurn, CountCost, PromptCounter } from './types.js';

/** Counts the raw text (without the template overhead). */
export type RawCount = (text: string) => Promise<number> | number;

/** A raw count plus a fixed overhead, with usage statistics. */
export class CountingCounter implements PromptCounter {
  probes = 0;
  sample: { chars: number; tokens: number } | null = null;
  countMessages: ((messages: readonly ChatTurn[]) => Promise<number>) | null = null;
  private countCalls = 0;
  private countMs = 0;

  constructor(
    readonly mode: string,
    readonly cost: CountCost,
    readonly calibrated: boolean,
    private readonly raw: RawCount,
    private readonly base: Omit<CalibrationInfo, 'probes' | 'counts' | 'countMs' | 'incremental'>,
    private readonly incremental: IncrementalCounter | null = null,
  ) {}

  get costly(): boolean {
    return this.cost === 'request';
  }

  async count(text: string): Promise<number> {
    const t0 = performance.now();
    try {
      const raw = await this.raw(text);
      return raw + (this.base.overheadTokens ?? 0);
    } finally {
      this.countCalls++;
      this.countMs += performance.now() - t0;
    }
  }

  info(): CalibrationInfo {
    const warnings = [...this.base.warnings];
    if (this.incremental?.state === 'off')
      warnings.push(
        'incremental counting turned off: the tokenizer is not additive at line breaks (every count is a whole count)',
      );
    return {
      ...this.base,
      warnings,
      probes: this.probes,
      counts: this.countCalls,
      countMs: Math.round(this.countMs * 1000) / 1000,
      incremental: this.incremental === null ? 'not-applicable' : this.incremental.state,
    };
  }
}

/** `chars:R`: `round(length / R)`, nothing counted, no probe. */
export function charsCounter(mode: string, ratio: number): CountingCounter {
  return new CountingCounter(mode, 'local', false, (text) => Math.round(text.length / ratio), {
    mode,
    method: mode,
    tokenizeUrl: null,
    overheadTokens: null,
    overheadSource: 'not-applicable',
    warnings: [],
    tokenizer: `chars:${ratio}`,
  });
}
