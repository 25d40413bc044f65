/**
 * Other tools' runs in the HTML report (docs/interop.md): their per-request TTFT and E2E drawn in
 * the latency CDFs beside servebench's runs (as the tool timed each request), every run on
 * servebench's figures side by side (side-by-side.ts marks where each value comes from), and per
 * run its facts, the tool's own figures under their own names with their definitions, and the
 * figures recomputed from its rows. Every value from a file is escaped.
 */
import path from 'node:path';
import { BASIS_LEGEND, SIDE_BY_SIDE_KEYS, type CellBasis, type PeerInput, type SideRow } from '../side-by-side.js';
import { cdf, type RunChartData } from './data.js';
import { escapeHtml as esc } from './escape.js';
import { fmt } from './tables.js';

/** The label of another tool's run in charts and headings: the file's base name, its entry, its tool. */
function peerLabel({ file, run }: PeerInput): string {
  return `${path.basename(file)}${run.entry === null ? '' : ` (${run.entry})`} · ${run.tool}`;
}

/** Chart data of another tool's run: only its latency CDFs (no timeline, series, scatter or gaps). */
export function peerChartData(peer: PeerInput): RunChartData {
  const ok = (peer.run.rows ?? []).filter((r) => r.ok);
  const column = (pick: (r: (typeof ok)[number]) => number | null): number[] =>
    ok.flatMap((r) => (pick(r) === null ? [] : [pick(r)!]));
  return {
    label: peerLabel(peer),
    reasons: false,
    cdf: { ttfo: [], ttft: cdf(column((r) => r.ttft_ms)), e2e: cdf(column((r) => r.e2e_ms)) },
    timeline: null,
    series: null,
    scatter: [],
    gaps: null,
  };
}

const swatch = (i: number): string => `<span class="sw c${i % 8}"></span>`;

/** Every run on servebench's figures, each value marked with where it comes from. */
export function sideBySideTable(rows: readonly SideRow[]): string {
  const head = `<tr><th>run</th><th>tool</th>${SIDE_BY_SIDE_KEYS.map((k) => `<th>${esc(k.heading)}</th>`).join('')}</tr>`;
  const body = rows.map(
    (r, i) =>
      `<tr><th>${swatch(i)}${esc(r.label)}</th><td>${esc(r.tool)}</td>${r.cells
        .map((c) =>
          c === null
            ? '<td class="num">–</td>'
            : `<td class="num${c.basis === '≈' ? ' differs' : ''}" title="${esc(c.field)}">${fmt(c.value)} <span class="unit">${esc(c.basis)}</span></td>`,
        )
        .join('')}</tr>`,
  );
  const legend = (Object.keys(BASIS_LEGEND) as CellBasis[])
    .map((b) => `<li><code>${esc(b)}</code> ${esc(BASIS_LEGEND[b])}</li>`)
    .join('');
  return `<div class="scroll"><table class="figures numeric"><thead>${head}</thead><tbody>${body.join('')}</tbody></table></div><ul class="raw">${legend}</ul>`;
}

/** One section per other tool's run; `first` is its position among all runs (its color). */
export function peerSections(peers: readonly PeerInput[], first: number): string {
  return peers
    .map((peer, k) => {
      const { run } = peer;
      const f = run.facts;
      const facts: [string, unknown][] = [
        ['tool', `${run.tool}${run.tool_version === null ? '' : ` ${run.tool_version}`}`],
        ['read by', `servebench's '${run.format}' reader v${run.reader_version}`],
        ['file', peer.file],
        ['model', f.model ?? '(not recorded)'],
        ['backend', f.backend ?? '(not recorded)'],
        ['dataset', f.dataset ?? '(not recorded)'],
        ['concurrency', f.concurrency ?? '(not recorded)'],
        [
          'rate (req/s)',
          f.rate_rps === null ? '(not recorded)' : f.rate_rps === Infinity ? 'every request at once' : f.rate_rps,
        ],
        ['duration (s)', f.duration_s ?? '(not recorded)'],
        ['successes', f.successes ?? '(not recorded)'],
        ['failures', f.failures ?? '(not counted)'],
        ['what fails', f.failure_definition],
        ['tokens in / out', `${fmt(f.input_tokens_total)} / ${fmt(f.output_tokens_total)}`],
      ];
      const factRows = facts.map(([name, value]) => `<tr><th>${esc(name)}</th><td>${fmt(value)}</td></tr>`).join('');
      const figureRows = run.figures
        .map((fig) => {
          const relation =
            fig.servebench === null
              ? 'no servebench equivalent'
              : fig.same
                ? `= servebench <code>${esc(fig.servebench)}</code>`
                : `≈ servebench <code>${esc(fig.servebench)}</code>: ${esc(fig.difference ?? 'defined differently')}`;
          return `<tr><th><code>${esc(fig.field)}</code></th><td class="num">${fmt(fig.value)}</td><td class="unit">${esc(fig.unit)}</td><td class="def">${esc(fig.meaning)}</td><td class="def">${relation}</td></tr>`;
        })
        .join('');
      const recomputed =
        run.recomputed === null || run.rows === null
          ? `<p class="note">${
              run.rows !== null && run.rows_sample !== null
                ? `${run.rows.length} per-request rows, a sample of the run's requests (${esc(run.rows_sample)}): servebench recomputes nothing from a sample.`
                : 'No per-request rows: only the tool’s own figures.'
            }</p>`
          : `<h3>servebench's figures recomputed from the ${run.rows.length} per-request rows</h3><table class="figures"><tbody>${Object.entries(
              run.recomputed,
            )
              .map(([name, value]) => `<tr><th><code>${esc(name)}</code></th><td class="num">${fmt(value)}</td></tr>`)
              .join('')}</tbody></table>`;
      const unmapped = Object.keys(run.unmapped).length;
      return `<section><h2>${swatch(first + k)}${esc(peerLabel(peer))}</h2><div class="grid"><div class="panel scroll"><h3>What the file records</h3><table class="identity"><tbody>${factRows}</tbody></table></div><div class="panel scroll">${recomputed}</div></div><div class="panel scroll" style="margin-top:14px"><details><summary>The tool's own figures, under its names, with its definitions (${run.figures.length})</summary><table class="figures"><thead><tr><th>field</th><th>value</th><th>unit</th><th>meaning</th><th>servebench</th></tr></thead><tbody>${figureRows}</tbody></table></details><p class="note">${unmapped} more field${unmapped === 1 ? '' : 's'} not mapped: <code>servebench show ${esc(peer.file)} --all</code> lists them.</p></div></section>`;
    })
    .join('');
}
