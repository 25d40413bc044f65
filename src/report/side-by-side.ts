/**
 * servebench runs and other tools' runs side by side on servebench's figures (`report`, terminal
 * and HTML; docs/interop.md). Each cell says where its value comes from: the result's own figure
 * (`=`), the other tool's figure of servebench's definition (`=`), the figure recomputed from the
 * tool's per-request rows by servebench's definition (`r`), or — only when neither exists — the
 * tool's nearest figure of another definition (`≈`), which is not the same figure and is marked so.
 */
import path from 'node:path';
import type { RunView } from '../result/run-view.js';
import type { PeerRun } from '../peers/peer-run.js';
import { nearestOtherFigure, servebenchFigure } from '../peers/servebench-figures.js';
import { finiteOrNull } from '../util/numbers.js';

/** Another tool's run in a report: the file as given and the run read from it. */
export interface PeerInput {
  file: string;
  run: PeerRun;
}

/** The figures set side by side, with their column headings. */
export const SIDE_BY_SIDE_KEYS: readonly { key: string; heading: string }[] = [
  { key: 'ttft_p50_ms', heading: 'TTFT p50 ms' },
  { key: 'ttft_p95_ms', heading: 'TTFT p95 ms' },
  { key: 'e2e_p50_ms', heading: 'E2E p50 ms' },
  { key: 'e2e_p95_ms', heading: 'E2E p95 ms' },
  { key: 'mean_inter_token_latency_ms_p50', heading: 'ITL p50 ms' },
  { key: 'mean_inter_token_latency_ms_p95', heading: 'ITL p95 ms' },
  { key: 'throughput_tok_s', heading: 'tok/s' },
];

/** Where a cell's value comes from (see the module comment). */
export type CellBasis = '=' | 'r' | '≈';

export interface SideCell {
  value: number;
  basis: CellBasis;
  /** The field the value was read from (for `≈`, the tool's own). */
  field: string;
}

export interface SideRow {
  label: string;
  tool: string;
  cells: (SideCell | null)[];
}

/** What each basis mark means, for the legend under the table. */
export const BASIS_LEGEND: Readonly<Record<CellBasis, string>> = {
  '=': "servebench's definition: the result's own figure, or the tool's figure defined as servebench's",
  r: "recomputed by servebench's definition from the tool's per-request rows",
  '≈': "the tool's nearest figure, of ANOTHER definition (show FILE says how it differs): not the same figure",
};

/** One servebench result's row. */
function ownRow(view: RunView): SideRow {
  const metrics = (view.doc['metrics'] ?? {}) as Record<string, unknown>;
  return {
    label: view.label,
    tool: view.servebench === null ? 'anvil-serving' : 'servebench',
    cells: SIDE_BY_SIDE_KEYS.map(({ key }) => {
      const v = finiteOrNull(metrics[key]);
      return v === null ? null : { value: v, basis: '=', field: key };
    }),
  };
}

/** One other tool's run's row. */
function peerRow({ file, run }: PeerInput): SideRow {
  return {
    label: `${path.basename(file)}${run.entry === null ? '' : ` (${run.entry})`}`,
    tool: run.tool,
    cells: SIDE_BY_SIDE_KEYS.map(({ key }): SideCell | null => {
      const own = servebenchFigure(run, key);
      if (own !== null) return own;
      const near = nearestOtherFigure(run, key);
      return near === null ? null : { value: near.value, basis: '≈', field: near.figure.field };
    }),
  };
}

/** Every run's row: servebench's results first, in the order given, then the other tools'. */
export function sideBySideRows(runs: readonly RunView[], peers: readonly PeerInput[]): SideRow[] {
  return [...runs.map(ownRow), ...peers.map(peerRow)];
}

const cellText = (c: SideCell | null): string =>
  c === null ? '–' : `${c.value >= 1000 ? c.value.toFixed(0) : c.value.toFixed(1)} ${c.basis}`;

/** The terminal table (ends with a newline). */
export function formatSideBySide(rows: readonly SideRow[]): string {
  const header = ['run', 'tool', ...SIDE_BY_SIDE_KEYS.map((k) => k.heading)];
  const body = rows.map((r) => [r.label, r.tool, ...r.cells.map(cellText)]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const used = new Set(rows.flatMap((r) => r.cells.flatMap((c) => (c === null ? [] : [c.basis]))));
  const legend = (Object.keys(BASIS_LEGEND) as CellBasis[])
    .filter((b) => used.has(b))
    .map((b) => `  ${b}  ${BASIS_LEGEND[b]}`);
  return `${["servebench's figures, side by side", line(header), ...body.map(line), ...legend].join('\n')}\n`;
}
