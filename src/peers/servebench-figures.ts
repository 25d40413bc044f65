/**
 * A peer run's value for one servebench figure (a result `metrics` key), wherever the commands
 * need it (`list`, `compare`, `report`): the tool's own figure when it is servebench's definition,
 * the figure recomputed from its rows, or — named as such — the tool's nearest figure of another
 * definition, in servebench's unit.
 */
import type { PeerFigure, PeerRun } from './peer-run.js';

/**
 * A peer value in the unit of the servebench key it comes nearest (`_ms` keys in ms, `_tok_s`
 * keys in tok/s), or null when the units cannot be matched.
 */
function inServebenchUnit(value: number, unit: string, key: string): number | null {
  if (key.endsWith('_ms') || key.endsWith('_ms_p50') || key.endsWith('_ms_p95'))
    return unit === 'ms' ? value : unit === 's' ? value * 1000 : null;
  if (key.includes('tok_s')) return unit === 'tok/s' ? value : null;
  return null;
}

/** The figure of servebench's definition: the tool's own (`=`), else recomputed from the rows (`r`); null when neither exists. */
export function servebenchFigure(run: PeerRun, key: string): { value: number; basis: '=' | 'r'; field: string } | null {
  const own = run.as_servebench[key];
  if (own !== undefined) {
    const figure = run.figures.find((f) => f.servebench === key && f.same);
    return { value: own, basis: '=', field: figure?.field ?? key };
  }
  const recomputed = run.recomputed?.[key];
  return typeof recomputed === 'number' ? { value: recomputed, basis: 'r', field: key } : null;
}

/** The tool's first figure of another definition nearest servebench's `key`, with its value in servebench's unit; null when none converts. */
export function nearestOtherFigure(run: PeerRun, key: string): { figure: PeerFigure; value: number } | null {
  for (const figure of run.figures) {
    if (figure.servebench !== key || figure.same || figure.value === null) continue;
    const value = inServebenchUnit(figure.value, figure.unit, key);
    if (value !== null) return { figure, value };
  }
  return null;
}
