/**
 * The `distributions` block: the per-request families of the timed successes (EXTENDED_RULES,
 * extended-definitions.ts).
 */

import type { MsFamily, RateFamily, TokenFamily } from '../extended-definitions.js';
import { familiesOf, familyRecord } from './families.js';
import type { RequestFacts } from './request-facts.js';

/** Per-request distributions (timed successes). */
export type RequestDistributions = MsFamily<'ttfo'> &
  MsFamily<'ttft'> &
  MsFamily<'e2e'> &
  MsFamily<'generation'> &
  MsFamily<'visible_generation'> &
  MsFamily<'mean_itl'> &
  RateFamily<'decode'> &
  RateFamily<'effective_prefill'> &
  TokenFamily<'prompt'> &
  TokenFamily<'output'>;

/** Every distribution family's keys, from the series pass A filled (in FAMILIES order). */
export function distributionsBlock(f: RequestFacts): RequestDistributions {
  const distributions: Record<string, number | null> = {};
  familiesOf('distributions').forEach((family, k) =>
    Object.assign(distributions, familyRecord(family.base, family.unit, f.dist[k]!.stats())),
  );
  return distributions as RequestDistributions;
}
