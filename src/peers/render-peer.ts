/**
 * `servebench show` of another tool's run (docs/interop.md): the facts, every figure under the
 * tool's own name with its definition and how it stands to servebench's, servebench's figures
 * recomputed from the rows, and (`--all`) every field no figure took, as the file had it.
 */
import type { PeerRun } from './peer-run.js';

const fmt = (v: number): string => (Number.isInteger(v) ? String(v) : v.toPrecision(6).replace(/\.?0+$/, ''));

/** A fact, or "not recorded". */
const fact = (v: string | number | null, unit = ''): string =>
  v === null ? 'not recorded' : typeof v === 'number' ? `${fmt(v)}${unit}` : v;

function rate(rps: number | null): string {
  if (rps === null) return 'rate not recorded';
  return rps === Infinity ? 'every request at once' : `${fmt(rps)} req/s`;
}

/** The readable summary of one run; `all` adds the unmapped fields. */
export function renderPeerRun(run: PeerRun, label: string, all: boolean): string {
  const f = run.facts;
  const lines: string[] = [
    `${label}${run.entry === null ? '' : ` (${run.entry})`}: ${run.tool}, read by servebench's '${run.format}' reader v${run.reader_version}${run.tool_version === null ? '' : `, tool version ${run.tool_version}`}`,
    `  model             ${fact(f.model)}`,
    `  backend           ${fact(f.backend)}`,
    `  dataset           ${fact(f.dataset)}`,
    `  load              concurrency ${fact(f.concurrency)}, ${rate(f.rate_rps)}, duration ${fact(f.duration_s, ' s')}`,
    `  requests          ${fact(f.successes)} completed, ${f.failures === null ? 'failures not counted' : `${fmt(f.failures)} failed`}`,
    `                    ${f.failure_definition}`,
    `  tokens            ${fact(f.input_tokens_total)} in, ${fact(f.output_tokens_total)} out`,
    `  figures, as the tool defines them:`,
  ];
  if (run.figures.length === 0) lines.push('    none: the file holds per-request records only');
  for (const fig of run.figures) {
    const value = fig.value === null ? '–' : `${fmt(fig.value)} ${fig.unit}`;
    const relation =
      fig.servebench === null
        ? `no servebench equivalent${fig.difference !== null ? ` (${fig.difference})` : ''}`
        : fig.same
          ? `= servebench ${fig.servebench}`
          : `≈ servebench ${fig.servebench}: ${fig.difference ?? 'defined differently'}`;
    lines.push(`    ${fig.field.padEnd(26)} ${value.padStart(16)}   ${fig.meaning}; ${relation}`);
  }
  if (run.recomputed !== null && run.rows !== null) {
    lines.push(`  servebench's figures recomputed from the ${run.rows.length} per-request rows:`);
    for (const [name, value] of Object.entries(run.recomputed))
      lines.push(`    ${name.padEnd(34)} ${value === null ? '–' : fmt(value)}`);
  } else if (run.rows !== null && run.rows_sample !== null) {
    lines.push(
      `  ${run.rows.length} per-request rows, a SAMPLE of the run's requests (${run.rows_sample}): servebench recomputes nothing from a sample; only the tool’s own figures above`,
    );
  } else {
    lines.push('  no per-request rows: only the tool’s own figures above');
  }
  const unmapped = Object.keys(run.unmapped);
  if (!all) {
    if (unmapped.length > 0) lines.push(`  ${unmapped.length} more fields not mapped (show --all lists them)`);
  } else {
    lines.push(`  fields not mapped (${unmapped.length}):`);
    for (const key of unmapped) lines.push(`    ${key}: ${JSON.stringify(run.unmapped[key])}`);
  }
  return `${lines.join('\n')}\n`;
}

/** JSON text of a value whose numbers may be non-finite: those become the strings `"Infinity"`, `"-Infinity"`, `"NaN"`. */
export function peerJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v), 2);
}
