/**
 * The HTML report's markup that does not need JavaScript: workload identity, headline cards and
 * the tables of every figure with its definition beside it. Definitions come from the metric
 * tables themselves (definitions.ts, extended-definitions.ts), never copied, so the report and
 * docs/metrics.md cannot disagree. Every value from a result file is escaped.
 */

import { RUN_METRICS, ROW_FIELDS } from '../../metrics/definitions.js';
import { ENTRIES, FAMILIES, familyKeys } from '../../metrics/extended-definitions.js';
import { checkIdentity, showValue } from '../../result/identity.js';
import { asDoc, contextLabel, get, loadLabel, protocolLabel, str, type RunView } from '../../result/run-view.js';
import { finiteOrNull } from '../../util/numbers.js';
import { escapeHtml as esc, richText } from './escape.js';

/** A number shown with precision for its size; non-numbers escaped as text. */
export function fmt(v: unknown): string {
  if (v === null || v === undefined) return '–';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return '–';
    if (Number.isInteger(v)) return String(v);
    const a = Math.abs(v);
    return v.toFixed(a >= 1000 ? 0 : a >= 100 ? 1 : a >= 1 ? 2 : 4);
  }
  return esc(typeof v === 'string' ? v : JSON.stringify(v));
}

const swatch = (i: number): string => `<span class="sw c${i % 8}"></span>`;
/** Column heads of runs; `at` gives each run's position among all runs (its color). */
const runHead = (runs: readonly RunView[], at: readonly number[] = runs.map((_, i) => i)): string =>
  runs.map((r, i) => `<th>${swatch(at[i] ?? i)}${esc(r.label)}</th>`).join('');

/** Workload identity and provenance, one column per run; rows where runs differ are marked. */
export function identityTable(runs: readonly RunView[]): string {
  const flags = (v: RunView): string => {
    const f = asDoc(v.doc['serve_flags']);
    return `mode=${str(f['thinking_mode']) ?? '–'} no_thinking=${String(f['no_thinking'] ?? '–')} effort=${str(f['reasoning_effort']) ?? '–'}`;
  };
  const rows: [string, (v: RunView) => string][] = [
    ['model', (v) => v.model],
    ['protocol', (v) => protocolLabel(v)],
    ['load', (v) => `n=${fmt(v.doc['requests'])} ${loadLabel(v)}`],
    ['context', (v) => contextLabel(v)],
    ['max_tokens', (v) => String(v.doc['max_tokens'] ?? '–')],
    ['prompt_set_id', (v) => str(v.doc['prompt_set_id']) ?? '(not recorded)'],
    ['cache_policy', (v) => str(v.doc['cache_policy']) ?? '(not recorded)'],
    ['thinking', flags],
    ['prompt sizing', (v) => str(get(v.servebench, 'prompt_method')) ?? 'chars:3.0 (reference)'],
    ['engine', (v) => str(v.doc['engine']) ?? '–'],
    ['gpu', (v) => str(v.doc['gpu']) ?? '–'],
    ['window', (v) => fmt(v.doc['max_context_tokens'])],
    ['endpoint', (v) => str(v.doc['base_url']) ?? '–'],
    ['run date', (v) => v.runDate ?? '–'],
    [
      'tool',
      (v) => (v.servebench === null ? 'reference harness' : `servebench ${str(v.servebench['tool_version']) ?? ''}`),
    ],
    ['file', (v) => v.file],
  ];
  const body = rows.map(([name, read]) => {
    const values = runs.map(read);
    const differs = values.some((x) => x !== values[0]);
    return `<tr${differs && runs.length > 1 ? ' class="differs"' : ''}><th>${esc(name)}</th>${values.map((x) => `<td>${esc(x)}</td>`).join('')}</tr>`;
  });
  return `<table class="identity"><thead><tr><th></th>${runHead(runs)}</tr></thead><tbody>${body.join('')}</tbody></table>`;
}

/** Chips of the workload for the page header: the first run's, plus what the others change. */
export function headerChips(runs: readonly RunView[]): string {
  if (runs.length === 0) return '';
  // Each chip lists the distinct values across runs, so a sweep shows all its loads.
  const distinct = (read: (v: RunView) => string): string => [...new Set(runs.map(read))].join(' | ');
  const chips = [
    distinct(protocolLabel),
    distinct((v) => `n=${fmt(v.doc['requests'])} ${loadLabel(v)}`),
    `context ${distinct(contextLabel)}`,
    `max_tokens ${distinct((v) => fmt(v.doc['max_tokens']))}`,
    distinct((v) => str(v.doc['cache_policy']) ?? 'cache policy not recorded'),
  ];
  for (const key of ['engine', 'gpu']) {
    const values = [...new Set(runs.map((r) => str(r.doc[key])).filter((v): v is string => v !== null))];
    if (values.length > 0) chips.push(`${key} ${values.join(' vs ')}`);
  }
  return `<div class="chips">${chips.map((c) => `<span class="chip">${esc(c)}</span>`).join('')}</div>`;
}

/** One line per candidate: whether its workload is the first run's (servebench compare's rules). */
export function identityVerdict(runs: readonly RunView[]): string {
  if (runs.length < 2) return '';
  const lines = runs.slice(1).map((run, i) => {
    const checks = checkIdentity(runs[0]!, run);
    const differs = checks
      .filter((c) => c.status === 'differs')
      .map((c) => `${c.field} (${showValue(c.a)} → ${showValue(c.b)})`);
    const unknown = checks.filter((c) => c.status === 'unknown');
    const reasons = [...new Set(unknown.flatMap((c) => [c.a, c.b]).flatMap((v) => (v.known ? [] : [v.why])))];
    const parts: string[] = [];
    if (differs.length > 0) parts.push(`workload differs from the first run in ${differs.join('; ')}`);
    if (unknown.length > 0)
      parts.push(`cannot be shown equal in ${unknown.map((c) => c.field).join(', ')} (${reasons.join('; ')})`);
    const text = parts.length === 0 ? 'same workload as the first run: figures are comparable' : parts.join('. ');
    return `<li class="${parts.length === 0 ? 'ok' : 'warn'}">${swatch(i + 1)}${esc(run.label)}: ${esc(text)}</li>`;
  });
  return `<ul class="verdicts">${lines.join('')}</ul>`;
}

interface Card {
  title: string;
  unit: string;
  better: 'lower' | 'higher' | null;
  read: (v: RunView) => number | null;
  /** Display text instead of the number (escaped HTML). */
  show?: (v: RunView) => string;
}

const metric =
  (key: string) =>
  (v: RunView): number | null =>
    finiteOrNull(get(v.doc, 'metrics', key));

/** Headline cards; with several runs each card lists every run and its change from the first. */
export function cards(runs: readonly RunView[]): string {
  const list: Card[] = [
    {
      title: 'completed',
      unit: '',
      better: null,
      read: (v) => finiteOrNull(v.doc['completed']),
      show: (v) => `${fmt(v.doc['completed'])}<span class="of"> / ${fmt(v.doc['requests'])}</span>`,
    },
    ...(runs.some((r) => r.protocol === 'capacity-v4-reasoning')
      ? [{ title: 'TTFO p50', unit: 'ms', better: 'lower' as const, read: metric('time_to_first_output_p50_ms') }]
      : []),
    { title: 'TTFT p50', unit: 'ms', better: 'lower', read: metric('ttft_p50_ms') },
    { title: 'TTFT p95', unit: 'ms', better: 'lower', read: metric('ttft_p95_ms') },
    { title: 'E2E p95', unit: 'ms', better: 'lower', read: metric('e2e_p95_ms') },
    { title: 'mean ITL p50', unit: 'ms', better: 'lower', read: metric('mean_inter_token_latency_ms_p50') },
    { title: 'decode p50', unit: 'tok/s', better: 'higher', read: metric('decode_tok_s_p50') },
    { title: 'throughput', unit: 'tok/s', better: 'higher', read: metric('throughput_tok_s') },
  ];
  if (runs.some((r) => finiteOrNull(get(r.extended, 'steady_state', 'output_tok_s')) !== null)) {
    list.push({
      title: 'steady state',
      unit: 'tok/s',
      better: 'higher',
      read: (v) => finiteOrNull(get(v.extended, 'steady_state', 'output_tok_s')),
    });
  }
  if (runs.some((r) => get(r.extended, 'goodput') !== null && get(r.extended, 'goodput') !== undefined)) {
    list.push({
      title: 'goodput',
      unit: 'req/s',
      better: 'higher',
      read: (v) => finiteOrNull(get(v.extended, 'goodput', 'goodput_req_s')),
    });
  }
  const html = list.map((card) => {
    const base = card.read(runs[0]!);
    const lines = runs.map((run, i) => {
      const value = card.read(run);
      let delta = '';
      if (i > 0 && value !== null && base !== null && base !== 0 && card.better !== null) {
        const change = ((value - base) / Math.abs(base)) * 100;
        const good = card.better === 'lower' ? change < 0 : change > 0;
        delta = ` <span class="delta ${Math.abs(change) < 0.05 ? '' : good ? 'good' : 'bad'}">${change >= 0 ? '+' : ''}${change.toFixed(1)}%</span>`;
      }
      return `<div class="${i === 0 ? 'big' : 'small'}">${runs.length > 1 ? swatch(i) : ''}${card.show ? card.show(run) : fmt(value)}${delta}</div>`;
    });
    return `<div class="card"><div class="title">${esc(card.title)} <span class="unit">${esc(card.unit)}</span></div>${lines.join('')}</div>`;
  });
  return `<div class="cards">${html.join('')}</div>`;
}

/** The reference `metrics` keys: value per run and the definition (RUN_METRICS). */
export function referenceTable(runs: readonly RunView[]): string {
  const rows = Object.entries(RUN_METRICS).map(
    ([key, d]) =>
      `<tr><th><code>${esc(key)}</code></th><td class="unit">${esc(d.unit)}</td>${runs.map((r) => `<td class="num">${fmt(get(r.doc, 'metrics', key))}</td>`).join('')}<td class="def">${richText(d.definition)}</td></tr>`,
  );
  return `<table class="figures"><thead><tr><th>metrics.*</th><th>unit</th>${runHead(runs)}<th>definition</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The `servebench.metrics` distributions and scalars, from extended-definitions.ts. */
export function extendedTable(runs: readonly RunView[]): string {
  const withExt = runs.map((r, i) => ({ r, i })).filter(({ r }) => r.extended !== null);
  if (withExt.length === 0)
    return '<p class="note">No <code>servebench.metrics</code> in these files (reference harness results).</p>';
  const famRows = FAMILIES.flatMap((f) => {
    const k = familyKeys(f.base, f.unit);
    const present = withExt.filter(
      ({ r }) => get(r.extended, f.section) !== null && get(r.extended, f.section) !== undefined,
    );
    return present.map(({ r, i }, j) => {
      const sec = asDoc(get(r.extended, f.section));
      const cells = [k.samples, k.mean, ...k.percentiles, k.max]
        .map((key) => `<td class="num">${fmt(sec[key])}</td>`)
        .join('');
      const head =
        j === 0
          ? `<th rowspan="${present.length}"><code>${esc(`${f.section}.${f.base}`)}</code><div class="unit">${esc(f.unit.replace('_', '/'))}</div></th>`
          : '';
      const def = j === 0 ? `<td class="def" rowspan="${present.length}">${richText(f.definition)}</td>` : '';
      return `<tr>${head}<td>${swatch(i)}</td>${cells}${def}</tr>`;
    });
  });
  const fam = `<table class="figures"><thead><tr><th>distribution</th><th></th><th>n</th><th>mean</th><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>p99.9</th><th>max</th><th>definition</th></tr></thead><tbody>${famRows.join('')}</tbody></table>`;
  const scalarRows = ENTRIES.filter((e) => !e.path.includes('[]')).flatMap((e) => {
    const values = withExt.map(({ r }) => get(r.extended, ...e.path.split('.')));
    if (values.every((v) => typeof v === 'object' && v !== null)) return []; // arrays and sections: charted or listed elsewhere
    return [
      `<tr><th><code>${esc(e.path)}</code></th><td class="unit">${esc(e.unit)}</td>${values.map((v) => `<td class="num">${fmt(v)}</td>`).join('')}<td class="def">${richText(e.definition)}</td></tr>`,
    ];
  });
  const scalars = `<table class="figures"><thead><tr><th>servebench.metrics.*</th><th>unit</th>${runHead(
    withExt.map(({ r }) => r),
    withExt.map(({ i }) => i),
  )}<th>definition</th></tr></thead><tbody>${scalarRows.join('')}</tbody></table>`;
  return fam + scalars;
}

/** Glossary of the per-request fields (ROW_FIELDS): what the timeline, the scatter and the CSV hold. */
export function rowFieldTable(): string {
  const rows = Object.entries(ROW_FIELDS).map(
    ([key, d]) =>
      `<tr><th><code>${esc(key)}</code></th><td class="unit">${esc(d.unit)}</td><td class="def">${richText(d.definition)}</td></tr>`,
  );
  return `<table class="figures glossary"><thead><tr><th>request_timings[].*</th><th>unit</th><th>definition</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
