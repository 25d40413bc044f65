/** The `goodput` block: the requests meeting every clause of the run's SLO, and each clause's run-level verdict. */

import { familyKeys, type FamilyUnit } from '../extended-definitions.js';
import { LEVELS } from '../order-stats.js';
import { percentileName, SLO_METRICS, type Slo, type SloClause } from '../slo.js';
import { familiesOf } from './families.js';
import { rate } from './ratios.js';

export interface GoodputClause {
  clause: string;
  metric: string;
  percentile: string;
  threshold_ms?: number;
  threshold_tok_s?: number;
  measured_ms?: number | null;
  measured_tok_s?: number | null;
  met: boolean;
  requests_meeting: number;
  requests_without_value: number;
}

export interface Goodput {
  slo: string;
  good_requests: number;
  good_fraction: number | null;
  goodput_req_s: number | null;
  goodput_tok_s: number | null;
  slo_met: boolean;
  clauses: GoodputClause[];
}

/** Whether one request value (or a run-level percentile) meets a clause. */
export const meets = (clause: SloClause, value: number): boolean =>
  clause.op === '<=' ? value <= clause.threshold : value >= clause.threshold;

/** What pass A counted for goodput, and the measured span it is a rate over. */
export interface GoodputFacts {
  goodRequests: number;
  goodTokens: number;
  measured: number;
  spanS: number | null;
  clauseMeeting: number[];
  clauseWithout: number[];
}

/** The distribution key holding a clause's run-level percentile. */
function clauseKey(clause: SloClause): { key: string; unit: FamilyUnit } {
  const field = SLO_METRICS[clause.metric].rowField;
  const family = familiesOf('distributions').find((f) => f.rowField === field);
  if (family === undefined) throw new Error(`no distribution family for row field ${field}`);
  const index = LEVELS.indexOf(clause.percentile);
  return { key: familyKeys(family.base, family.unit).percentiles[index]!, unit: family.unit };
}

/** The goodput block of an SLO, from the run-level distributions and pass A's per-request counts. */
export function goodputBlock(slo: Slo, distributions: Record<string, number | null>, facts: GoodputFacts): Goodput {
  const clauses: GoodputClause[] = slo.clauses.map((clause, c) => {
    const { key, unit } = clauseKey(clause);
    const measuredValue = distributions[key] ?? null;
    const met = measuredValue !== null && meets(clause, measuredValue);
    const suffix = unit === 'ms' ? 'ms' : 'tok_s';
    return {
      clause: clause.text,
      metric: clause.metric,
      percentile: percentileName(clause.percentile),
      [`threshold_${suffix}`]: clause.threshold,
      [`measured_${suffix}`]: measuredValue,
      met,
      requests_meeting: facts.clauseMeeting[c] ?? 0,
      requests_without_value: facts.clauseWithout[c] ?? 0,
    };
  });
  return {
    slo: slo.text,
    good_requests: facts.goodRequests,
    good_fraction: facts.measured > 0 ? facts.goodRequests / facts.measured : null,
    goodput_req_s: rate(facts.goodRequests, facts.spanS),
    goodput_tok_s: rate(facts.goodTokens, facts.spanS),
    slo_met: clauses.every((c) => c.met),
    clauses,
  };
}
