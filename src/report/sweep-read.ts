/**
 * Reading a sweep summary (`sweep.json`, schema `servebench.sweep/v1`, written by
 * `servebench sweep`) back for reports. The shape is checked with zod so a hand-edited or
 * foreign file fails with one line instead of drawing nonsense.
 */

import { z } from 'zod';
import { InputFileError } from '../util/errors.js';
import type { SweepSummary } from './sweep.js';

const n = z.number().nullable();

const point = z.looseObject({
  load: z.number(),
  file: z.string(),
  requests: z.number(),
  completed: z.number(),
  failed: z.number(),
  output_tok_s: n,
  steady_output_tok_s: n,
  completions_per_s: n,
  ttft_ms_p50: n,
  ttft_ms_p95: n,
  ttft_ms_p99: n,
  mean_itl_ms_p50: n,
  mean_itl_ms_p95: n,
  e2e_ms_p50: n,
  e2e_ms_p95: n,
  goodput_req_s: n,
  slo_met: z.boolean().nullable(),
  scaling_efficiency_ratio: n,
});

const summary = z.looseObject({
  schema: z.literal('servebench.sweep/v1'),
  swept: z.enum(['concurrency', 'rate']),
  slo: z.string().nullable(),
  // Summaries written before the clauses were recorded have none: their charts draw no threshold line.
  slo_clauses: z
    .array(z.looseObject({ clause: z.string(), metric: z.string(), percentile: z.string(), threshold: z.number() }))
    .optional()
    .default([]),
  points: z.array(point),
  knee_load: n,
  knee_rule: z.string(),
  slo_limit_load: n,
  slo_note: z.string().nullable(),
  // Only in a sweep a signal ended (report/sweep.ts).
  interrupted: z.literal(true).optional(),
  interrupted_load: z.number().optional(),
});

/** True when a parsed JSON value claims to be a sweep summary. */
export function isSweepSummary(raw: unknown): boolean {
  return (
    typeof raw === 'object' && raw !== null && (raw as Record<string, unknown>)['schema'] === 'servebench.sweep/v1'
  );
}

/**
 * Checks a parsed sweep summary.
 * @throws InputFileError naming the first problems on one line.
 */
export function checkSweepSummary(file: string, raw: unknown): SweepSummary {
  const parsed = summary.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`);
    throw new InputFileError(file, `not a valid servebench.sweep/v1 summary: ${problems.join('; ')}`);
  }
  return parsed.data;
}
