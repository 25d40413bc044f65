/** The distribution families of one section of the block, and one family's keys filled from its statistics. */

import { familyKeys, FAMILIES, type Family, type FamilyUnit } from '../extended-definitions.js';
import type { SeriesStats } from '../order-stats.js';

export const familiesOf = (section: Family['section']): Family[] => FAMILIES.filter((f) => f.section === section);

/** The keys of one family filled from its statistics. */
export function familyRecord(base: string, unit: FamilyUnit, stats: SeriesStats): Record<string, number | null> {
  const keys = familyKeys(base, unit);
  const out: Record<string, number | null> = {
    [keys.samples]: stats.samples,
    [keys.mean]: stats.mean,
    [keys.max]: stats.max,
  };
  keys.percentiles.forEach((key, i) => {
    out[key] = stats.percentiles[i] ?? null;
  });
  return out;
}
