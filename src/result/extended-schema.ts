/**
 * `servebench.metrics`, the extended figures (their meaning: metrics/extended-definitions.ts and
 * docs/metrics.md), as a zod schema. The distribution families are built from the same key
 * spelling the metrics stage writes (`familyKeys`), typed by the same template types, so a family
 * is named once.
 */

import { z } from 'zod';
import {
  familyKeys,
  type FamilyUnit,
  type MsFamily,
  type RateFamily,
  type TokenFamily,
} from '../metrics/extended-definitions.js';

const int = z.int();
const num = z.number();
const str = z.string();
const nullableNum = num.nullable();
const nullableInt = int.nullable();

type Shape<T> = { [K in keyof T]: null extends T[K] ? typeof nullableNum | typeof nullableInt : typeof int };

function family<T>(base: string, unit: FamilyUnit): Shape<T> {
  const keys = familyKeys(base, unit);
  // A token family's largest value is a token count, an integer; every other value may be a fraction.
  const shape: Record<string, z.ZodType> = {
    [keys.samples]: int,
    [keys.mean]: nullableNum,
    [keys.max]: unit === 'tokens' ? nullableInt : nullableNum,
  };
  for (const key of keys.percentiles) shape[key] = nullableNum;
  return shape as Shape<T>;
}
const ms = <B extends string>(base: B): Shape<MsFamily<B>> => family<MsFamily<B>>(base, 'ms');
const rate = <B extends string>(base: B): Shape<RateFamily<B>> => family<RateFamily<B>>(base, 'tok_s');
const tokens = <B extends string>(base: B): Shape<TokenFamily<B>> => family<TokenFamily<B>>(base, 'tokens');

const goodputClauseSchema = z.strictObject({
  clause: str,
  metric: str,
  percentile: str,
  threshold_ms: num.optional(),
  threshold_tok_s: num.optional(),
  measured_ms: nullableNum.optional(),
  measured_tok_s: nullableNum.optional(),
  met: z.boolean(),
  requests_meeting: int,
  requests_without_value: int,
});

/** `servebench.metrics.goodput`: the `--slo` verdict, its clauses as parsed (metric, percentile, threshold). */
export const goodputBlockSchema = z.strictObject({
  slo: str,
  good_requests: int,
  good_fraction: nullableNum,
  goodput_req_s: nullableNum,
  goodput_tok_s: nullableNum,
  slo_met: z.boolean(),
  clauses: z.array(goodputClauseSchema),
});

const steadyStateSchema = z.strictObject({
  ...ms('ttft'),
  ...ms('e2e'),
  ...ms('mean_itl'),
  rule: str,
  start_ms: num,
  end_ms: num,
  duration_s: num,
  requests_started: int,
  requests_completed: int,
  requests_failed: int,
  requests_inside: int,
  output_tokens: int,
  output_tok_s: num,
  completions_per_s: num,
  starts_per_s: num,
  in_flight_avg: num,
});

/** The `servebench.metrics` object. */
export const extendedMetricsSchema = z.strictObject({
  requests: z.strictObject({
    measured: int,
    warmup_excluded: int,
    succeeded: int,
    failed: int,
    timed: int,
    with_chunk_times: int,
    output_tokens_from_usage: int,
  }),
  span: z.strictObject({ start_ms: nullableNum, end_ms: nullableNum, duration_s: nullableNum }),
  distributions: z.strictObject({
    ...ms('ttfo'),
    ...ms('ttft'),
    ...ms('e2e'),
    ...ms('generation'),
    ...ms('visible_generation'),
    ...ms('mean_itl'),
    ...rate('decode'),
    ...rate('effective_prefill'),
    ...tokens('prompt'),
    ...tokens('output'),
  }),
  schedule: z.strictObject({ ...ms('send_lag'), ...ms('ttft_from_schedule'), ...ms('e2e_from_schedule') }).nullable(),
  inter_chunk: z.strictObject({
    ...ms('gap'),
    requests: int,
    zero_gaps: int,
    histogram: z.strictObject({ edges_ms: z.array(num), counts: z.array(int) }),
  }),
  throughput: z.strictObject({
    output_tokens: int,
    output_tok_s: nullableNum,
    completions_per_s: nullableNum,
    peak_output_tok_s: nullableNum,
    tokens_unattributed: int,
  }),
  steady_state: steadyStateSchema.nullable(),
  steady_state_reason: str.nullable(),
  load: z.strictObject({
    mode: z.enum(['closed', 'open']),
    target_concurrency: int.nullable(),
    target_rate_req_s: nullableNum,
    achieved_rate_req_s: nullableNum,
    rate_ratio: nullableNum,
    steady_rate_req_s: nullableNum,
    steady_rate_ratio: nullableNum,
    in_flight_avg: nullableNum,
    steady_in_flight_avg: nullableNum,
    in_flight_max: int,
    concurrency_ratio: nullableNum,
    steady_concurrency_ratio: nullableNum,
  }),
  time_series: z.strictObject({
    bucket_s: num,
    t_s: z.array(num),
    in_flight_avg: z.array(num),
    in_flight_max: z.array(int),
    output_tok_s: z.array(num),
    completions: z.array(int),
    failures: z.array(int),
    ttft_p50_ms: z.array(nullableNum),
  }),
  goodput: goodputBlockSchema.nullable(),
});

/** `servebench.metrics.goodput`. */
export type GoodputBlock = z.infer<typeof goodputBlockSchema>;
