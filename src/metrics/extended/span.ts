/** The `span` block: the measured span, earliest start → latest end, and the request-seconds inside it. */

import type { RequestFacts } from './request-facts.js';

export interface Span {
  start_ms: number | null;
  end_ms: number | null;
  duration_s: number | null;
}

/** The measured span in seconds; `busyS` is Σ (end − start) over the measured requests. */
export interface MeasuredSpan {
  startS: number;
  endS: number;
  busyS: number;
  /** endS − startS; null without measured requests. */
  durationS: number | null;
}

export function measuredSpan(f: RequestFacts): MeasuredSpan {
  let spanStart = Infinity;
  let spanEnd = -Infinity;
  let busyS = 0;
  for (let i = 0; i < f.m; i++) {
    if (f.startS[i]! < spanStart) spanStart = f.startS[i]!;
    if (f.endS[i]! > spanEnd) spanEnd = f.endS[i]!;
    busyS += f.endS[i]! - f.startS[i]!;
  }
  return { startS: spanStart, endS: spanEnd, busyS, durationS: f.m > 0 ? spanEnd - spanStart : null };
}

export function spanBlock(span: MeasuredSpan): Span {
  const some = span.durationS !== null;
  return {
    start_ms: some ? span.startS * 1000 : null,
    end_ms: some ? span.endS * 1000 : null,
    duration_s: span.durationS,
  };
}
