/** The `throughput` block: output tokens and completions per second of the measured span, and the busiest bucket. */

import type { Arrivals } from './arrivals.js';
import { rate } from './ratios.js';
import type { RequestFacts } from './request-facts.js';
import type { MeasuredSpan } from './span.js';

export interface Throughput {
  output_tokens: number;
  output_tok_s: number | null;
  completions_per_s: number | null;
  peak_output_tok_s: number | null;
  tokens_unattributed: number;
}

export function throughputBlock(f: RequestFacts, span: MeasuredSpan, arrivals: Arrivals): Throughput {
  let peak: number | null = null;
  for (let k = 0; k < arrivals.bucketTokens.length; k++)
    if (peak === null || arrivals.bucketTokens[k]! > peak) peak = arrivals.bucketTokens[k]!;
  return {
    output_tokens: f.outputTokens,
    output_tok_s: rate(f.outputTokens, span.durationS),
    completions_per_s: rate(f.succeeded, span.durationS),
    peak_output_tok_s: peak,
    tokens_unattributed: arrivals.unattributed,
  };
}
