/**
 * `servebench report --html`: one self-contained page. Everything is inline — the stylesheet,
 * Chart.js, the drawing script and the data — and a Content-Security-Policy forbids every fetch
 * (`default-src 'none'`) and every script except these two by hash, so the page works offline
 * and a result file's text could not run as script even if an escape were missed.
 */

import { createHash } from 'node:crypto';
import type { RunView } from '../../result/run-view.js';
import type { SweepSummary } from '../sweep.js';
import { CLIENT_SCRIPT } from './client.js';
import { MAX_DRAWN_REQUESTS, runChartData, sweepChartData, type RunChartData } from './data.js';
import { embedJson, escapeHtml as esc } from './escape.js';
import { serverSection } from './server-section.js';
import { peerChartData, peerSections, sideBySideTable } from './peer-section.js';
import { sideBySideRows, type PeerInput } from '../side-by-side.js';
import { STYLE } from './style.js';
import {
  cards,
  extendedTable,
  fmt,
  headerChips,
  identityTable,
  identityVerdict,
  referenceTable,
  rowFieldTable,
} from './tables.js';
import { chartJsSource } from './vendor.js';

/** What a report shows. */
export interface ReportInput {
  runs: readonly RunView[];
  sweep: SweepSummary | null;
  /** Other tools' runs, shown beside servebench's (peer-section.ts). */
  peers?: readonly PeerInput[];
  generatedAt: string;
  toolVersion: string;
}

const hash = (script: string): string => `'sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}'`;

function canvas(id: string, chart: string, attrs: Record<string, string | number> = {}, tall = 0): string {
  const extra = Object.entries(attrs)
    .map(([k, v]) => ` data-${k}="${esc(v)}"`)
    .join('');
  const box = tall > 0 ? `<div class="chart tall" style="--h:${tall}px">` : '<div class="chart">';
  return `${box}<canvas id="${esc(id)}" data-chart="${chart}"${extra} role="img"></canvas></div>`;
}

const panel = (title: string, body: string, note = ''): string =>
  `<div class="panel"><h3>${esc(title)}</h3>${body}${note === '' ? '' : `<p class="note">${note}</p>`}</div>`;

type Charts = readonly RunChartData[];

function latencySection(data: Charts): string {
  const has = (pick: (d: RunChartData) => boolean): boolean => data.some(pick);
  const panels: string[] = [];
  const cdfs: [string, 'ttfo' | 'ttft' | 'e2e', string][] = [
    [
      'Time to first output (TTFO)',
      'ttfo',
      'First reasoning or content delta: when a reasoning model starts streaming.',
    ],
    [
      'Time to first token (TTFT)',
      'ttft',
      'First visible content delta. Each curve: share of requests that had their first token within x ms.',
    ],
    ['End-to-end latency', 'e2e', 'Request start to end of stream.'],
  ];
  // Without reasoning TTFO equals TTFT for every request: one chart says it all.
  const reasoning = has((d) => d.reasons);
  for (const [title, key, note] of cdfs)
    if ((key !== 'ttfo' || reasoning) && has((d) => d.cdf[key].length > 0))
      panels.push(panel(title, canvas(`cdf-${key}`, 'cdf', { metric: key }), esc(note)));
  if (has((d) => d.scatter.length > 0))
    panels.push(
      panel(
        'TTFT versus prompt tokens',
        canvas('scatter-ttft', 'scatter'),
        `One point per request; prefill time grows with the prompt, queueing shows as spread. Over ${MAX_DRAWN_REQUESTS} requests: in each of ${Math.floor(MAX_DRAWN_REQUESTS / 3)} equal slices by prompt tokens, the fastest, median and slowest TTFT.`,
      ),
    );
  if (has((d) => d.gaps !== null))
    panels.push(
      panel(
        'Inter-chunk gaps',
        canvas('gaps', 'gaps'),
        'Time between consecutive output deltas, all requests pooled (zero gaps, deltas in one read, excluded).',
      ),
    );
  if (panels.length === 0)
    return '<p class="note">These files have no per-request rows (pre-v2 or capacity-v2 era): only the summary figures below.</p>';
  return `<div class="grid">${panels.join('')}</div>`;
}

function runSections(input: ReportInput, data: Charts): string {
  return input.runs
    .map((run, i) => {
      const d = data[i]!;
      const parts: string[] = [];
      if (d.timeline !== null) {
        const shown = d.timeline.bars.length + d.timeline.failures.length;
        const more =
          d.timeline.total > d.timeline.bars.length
            ? ` Showing ${d.timeline.bars.length} of ${d.timeline.total} requests: in each of ${Math.floor(MAX_DRAWN_REQUESTS / 3)} equal slices by start time, the shortest, median and longest by E2E.`
            : '';
        parts.push(
          panel(
            'Per-request timeline',
            canvas(`timeline-${i}`, 'timeline', { run: i }, Math.min(1400, Math.max(240, shown * 9 + 90))),
            `Each bar is one request from its start: waiting and prefill until the first output, reasoning until the first visible token, then visible generation.${more}`,
          ),
        );
      }
      if (d.series !== null)
        parts.push(
          panel(
            'Load over time',
            canvas(`series-${i}`, 'series', { run: i }),
            'Per-second buckets of <code>servebench.metrics.time_series</code>: output tokens attributed to each second and the time-averaged requests in flight.',
          ),
        );
      if (parts.length === 0) {
        const why = run.hasRows
          ? 'rows without start offsets (reference harness): no timeline or time series'
          : 'no per-request rows in this era';
        parts.push(`<p class="note">${esc(why)}.</p>`);
      }
      // What the run said about itself on the console (a saturated client first of all) stays with its figures.
      const warnings = run.warnings.map((warning) => `<p class="note warning">warning: ${esc(warning)}</p>`).join('');
      return `<section><h2><span class="sw c${i % 8}"></span>${esc(run.label)}</h2>${warnings}<div class="grid">${parts.join('')}</div></section>${serverSection(run, d, i, panel, canvas)}`;
    })
    .join('');
}

function sweepSection(sweep: SweepSummary): string {
  const head = [
    'load',
    'ok/n',
    'tok/s',
    'steady tok/s',
    'TTFT p50',
    'TTFT p95',
    'ITL p50',
    'E2E p95',
    'scaling',
    'SLO',
  ];
  const rows = sweep.points.map(
    (p) =>
      `<tr>${[
        p.load,
        `${p.completed}/${p.requests}`,
        p.output_tok_s,
        p.steady_output_tok_s,
        p.ttft_ms_p50,
        p.ttft_ms_p95,
        p.mean_itl_ms_p50,
        p.e2e_ms_p95,
        p.scaling_efficiency_ratio,
        p.slo_met === null ? '–' : p.slo_met ? 'met' : 'missed',
      ]
        .map((v) => `<td class="num">${fmt(v)}</td>`)
        .join('')}</tr>`,
  );
  const table = `<div class="scroll"><table class="figures numeric"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
  const slo =
    sweep.slo === null
      ? ''
      : ` Highest load meeting <code>${esc(sweep.slo)}</code>: ${fmt(sweep.slo_limit_load)}${sweep.slo_note ? ` (${esc(sweep.slo_note)})` : ''}.`;
  return (
    `<section><h2>Sweep over ${esc(sweep.swept)}</h2><div class="grid">` +
    panel(
      'Throughput versus latency',
      canvas('sweep-latency', 'sweepLatency'),
      `Each point is one load level; dashed lines are the SLO thresholds.${slo}`,
    ) +
    panel(
      'Scaling',
      canvas('sweep-scaling', 'sweepScaling'),
      `Knee (triangle): ${fmt(sweep.knee_load)} — ${esc(sweep.knee_rule)}.`,
    ) +
    `</div><div class="panel" style="margin-top:14px">${table}<p class="note">Times in ms, rates in tok/s.</p></div></section>`
  );
}

/** Renders the complete page. */
export function renderHtmlReport(input: ReportInput): string {
  const peers = input.peers ?? [];
  if (input.runs.length === 0 && input.sweep === null && peers.length === 0)
    throw new Error('a report needs at least one result or a sweep');
  // Other tools' runs come after servebench's: their curves join the CDFs, their colors follow on.
  const charts = [...input.runs.map(runChartData), ...peers.map(peerChartData)];
  const payload = embedJson({ runs: charts, sweep: input.sweep === null ? null : sweepChartData(input.sweep) });
  const vendor = chartJsSource();
  const csp = `default-src 'none'; script-src ${hash(vendor)} ${hash(CLIENT_SCRIPT)}; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'`;
  const models = [
    ...new Set([
      ...input.runs.map((r) => r.model),
      ...peers.flatMap((p) => (p.run.facts.model === null ? [] : [p.run.facts.model])),
    ]),
  ];
  const title = models.length === 0 ? 'sweep' : models.join(' · ');
  const others =
    peers.length === 0
      ? ''
      : `<section><h2>servebench's figures, every tool side by side</h2><div class="panel">${sideBySideTable(sideBySideRows(input.runs, peers))}<p class="note">Other tools' curves in the latency charts are their own per-request times: where a tool times another event (docs/interop.md), its curve is not servebench's TTFT.</p></div></section>`;
  const runsPart =
    input.runs.length === 0
      ? peers.length === 0
        ? ''
        : `${others}<section><h2>Latency</h2>${latencySection(charts)}</section>`
      : `<section><h2>Workload</h2><div class="panel scroll">${identityTable(input.runs)}${identityVerdict(input.runs)}</div></section>
<section><h2>Headline figures</h2>${cards(input.runs)}</section>
${others}
${input.sweep === null ? '' : sweepSection(input.sweep)}
<section><h2>Latency</h2>${latencySection(charts)}</section>`;
  const figures =
    input.runs.length === 0
      ? ''
      : `<section><h2>Every figure, with its definition</h2>
<div class="panel scroll"><h3>Reference figures (<code>metrics</code>)</h3>${referenceTable(input.runs)}</div>
<div class="panel scroll" style="margin-top:14px"><details><summary>servebench figures (<code>servebench.metrics</code>): p50–p99.9 of every latency and rate, steady state, load, goodput</summary>${extendedTable(input.runs)}</details></div>
<div class="panel scroll" style="margin-top:14px"><details><summary>Per-request fields (timeline, scatter, CSV)</summary>${rowFieldTable()}</details></div></section>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>servebench report: ${esc(title)}</title>
<style>${STYLE}</style></head>
<body><header><h1>${esc(title)}</h1><div class="sub">servebench report · ${input.runs.length} run${input.runs.length === 1 ? '' : 's'}${peers.length === 0 ? '' : ` and ${peers.length} of other tools`}${input.sweep ? ` · sweep over ${esc(input.sweep.swept)}` : ''} · generated ${esc(input.generatedAt)} by servebench ${esc(input.toolVersion)}</div>${headerChips(input.runs)}</header>
<main>${runsPart}${input.runs.length === 0 && input.sweep !== null ? sweepSection(input.sweep) : ''}${runSections(input, charts)}${peerSections(peers, input.runs.length)}${figures}</main>
<footer>Percentiles are nearest rank (no interpolation); times are client-side from just before each request was sent. Definitions are generated from servebench's metric tables (docs/metrics.md).</footer>
<script type="application/json" id="sb-data">${payload}</script>
<script>${vendor}</script>
<script>${CLIENT_SCRIPT}</script>
</body></html>
`;
}
