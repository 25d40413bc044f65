/**
 * `show`: a readable, aligned plain-text summary of a result file of any era. Missing keys (older
 * eras) and nulls print as `–`, never as `null` or `NaN`. Latencies switch from ms to s at one
 * second so both a 40 ms TTFT and a 25 s E2E stay readable.
 */

import type { ResultDocument } from './schema.js';
import { asDoc, get, runWarnings, type Doc } from './run-view.js';
import { finiteOrNull } from '../util/numbers.js';
import { serverMetricsRows, serverMetricsWarnings } from './show-server.js';
import { readServerMetrics } from './server-metrics-text.js';
import { ENDPOINT_PATHS, ENDPOINTS, type Endpoint } from '../record/endpoint.js';
import { conversationsBlockSchema } from './servebench-schema.js';

const DASH = '–';

const ERA_LABEL: Readonly<Record<ResultDocument['era'], string>> = {
  current: 'current emitter',
  'v3-legacy': 'older capacity-v3 emitter: TTFT is the only boundary',
  v2: 'capacity-v2: no per-request rows',
  'pre-v2': 'pre-v2: different percentile rule, not comparable',
};

/** Milliseconds as `812.4 ms` below one second, else `14.83 s`. */
function formatDuration(ms: number | null): string {
  if (ms === null) return DASH;
  return Math.abs(ms) < 1000 ? `${ms.toFixed(1)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** A rate with precision that shrinks as it grows (4.44, 49.1, 982). */
function formatRate(value: number | null, unit: string): string {
  if (value === null) return DASH;
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`;
}

function text(v: unknown): string {
  if (v === null || v === undefined) return DASH;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Two-column `label  value` lines with the labels padded to a common width. */
function pairs(rows: readonly [string, string][]): string[] {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`);
}

/** A small right-aligned table: header row, then rows; first column left-aligned. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) =>
    r
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('   ')
      .trimEnd(),
  );
}

function workload(doc: Doc): string {
  const flags = asDoc(doc['serve_flags']);
  const ctx = doc['context_tokens'] === null ? 'sampled' : text(doc['context_tokens']);
  const burst = flags['shared_prefix_burst'] === true ? ' burst' : '';
  return `n=${text(doc['requests'])} c=${text(doc['concurrency'])} ctx=${ctx} max_tokens=${text(doc['max_tokens'])}${burst}`;
}

function distribution(doc: Doc): string {
  const d = asDoc(doc['context_distribution']);
  const entries = Object.entries(d).sort(([a], [b]) => Number(a) - Number(b));
  return entries.length === 0 ? DASH : entries.map(([size, count]) => `${size}×${text(count)}`).join(', ');
}

function cacheHit(m: Doc): string {
  const v = finiteOrNull(m['prefix_cache_hit_avg']);
  return v === null ? `${DASH} (no cached_tokens reported)` : `${(v * 100).toFixed(1)} %`;
}

function throughput(m: Doc): string {
  const t = finiteOrNull(m['throughput_tok_s']);
  if (t !== null) return `${formatRate(t, 'tok/s')} (${text(m['output_tokens'])} output tokens)`;
  const chunks = finiteOrNull(m['content_chunks_s']);
  return chunks !== null ? `${DASH} (no usage counts; ${formatRate(chunks, 'content chunks/s')})` : DASH;
}

function failureLines(doc: Doc): string[] {
  const failures = Array.isArray(doc['failures']) ? (doc['failures'] as unknown[]).map(asDoc) : [];
  if (failures.length === 0) return [];
  const groups = new Map<string, { count: number; sample: string }>();
  for (const f of failures) {
    const type = text(f['error_type']);
    const g = groups.get(type) ?? {
      count: 0,
      sample: typeof f['error_message'] === 'string' ? f['error_message'] : '',
    };
    g.count += 1;
    groups.set(type, g);
  }
  const lines = ['', 'failures'];
  for (const [type, g] of [...groups].sort((a, b) => b[1].count - a[1].count)) {
    const sample = g.sample === '' ? '(no message recorded)' : g.sample.replace(/\s+/g, ' ').slice(0, 120);
    lines.push(`  ${type} ×${g.count}: ${sample}`);
  }
  return lines;
}

/**
 * Render a parsed result as text (ends with a newline).
 * @example io.stdout(renderShow((await readResultFile(file)).result, file))
 */
export function renderShow(parsed: ResultDocument, label: string): string {
  const doc = parsed.doc as Doc;
  const m = asDoc(doc['metrics']);
  const flags = asDoc(doc['serve_flags']);
  const failed = finiteOrNull(doc['failed']);
  const protocol = typeof doc['measurement_protocol'] === 'string' ? doc['measurement_protocol'] : 'none';
  const wall = finiteOrNull(doc['wall_clock_ms']);
  const head = pairs([
    ['file', label],
    ['model', text(doc['model'])],
    ['engine', text(doc['engine'])],
    ['gpu', text(doc['gpu'])],
    ['endpoint', `${text(doc['base_url'])}${apiPath(doc)}`],
    ['protocol', `${protocol} (${ERA_LABEL[parsed.era]})`],
    ['workload', workload(doc)],
    ['context plan', distribution(doc)],
    ['window', doc['max_context_tokens'] === undefined ? DASH : `${text(doc['max_context_tokens'])} tokens`],
    ['thinking', `mode=${text(flags['thinking_mode'])} effort=${text(flags['reasoning_effort'])}`],
    [
      'run',
      doc['started_at'] === undefined
        ? text(doc['run_id'])
        : `${text(doc['started_at'])} → ${text(doc['finished_at'])}, wall ${formatDuration(wall)}`,
    ],
    [
      'outcome',
      failed === null
        ? `${text(doc['completed'])} completed of ${text(doc['requests'])}`
        : `${text(doc['completed'])} completed, ${failed} failed of ${text(doc['requests'])}`,
    ],
  ]);
  const p = (key: string): number | null => finiteOrNull(m[key]);
  const latency: string[][] = [];
  if ('time_to_first_output_p50_ms' in m)
    latency.push([
      'TTFO',
      formatDuration(p('time_to_first_output_p50_ms')),
      formatDuration(p('time_to_first_output_p95_ms')),
    ]);
  latency.push(['TTFT', formatDuration(p('ttft_p50_ms')), formatDuration(p('ttft_p95_ms'))]);
  latency.push(['E2E', formatDuration(p('e2e_p50_ms')), formatDuration(p('e2e_p95_ms'))]);
  if ('generation_p50_ms' in m) {
    latency.push(['generation', formatDuration(p('generation_p50_ms')), formatDuration(p('generation_p95_ms'))]);
    latency.push([
      'inter-token',
      formatDuration(p('mean_inter_token_latency_ms_p50')),
      formatDuration(p('mean_inter_token_latency_ms_p95')),
    ]);
    latency.push([
      'prefill',
      formatRate(p('effective_prefill_tok_s_p50'), 'tok/s'),
      formatRate(p('effective_prefill_tok_s_p95'), 'tok/s'),
    ]);
    latency.push(['decode', formatRate(p('decode_tok_s_p50'), 'tok/s'), formatRate(p('decode_tok_s_p95'), 'tok/s')]);
    latency.push(['prompt tokens', text(p('prompt_tokens_p50')), text(p('prompt_tokens_p95'))]);
  }
  const shards = shardsLine(doc);
  const conversations = conversationsLines(doc);
  const server = readServerMetrics(doc);
  const tail = pairs([
    ['throughput', throughput(m)],
    ['prefix cache hit', cacheHit(m)],
    ...(shards !== null ? [['shards', shards] as [string, string]] : []),
    ...conversations,
    ...('reasoning_chunks' in m
      ? [
          ['chunks', `${text(m['content_chunks'])} content, ${text(m['reasoning_chunks'])} reasoning`] as [
            string,
            string,
          ],
        ]
      : []),
    ...serverMetricsRows(server),
    ...recordsFileRows(doc),
  ]);
  const own = runWarnings(doc);
  const warnings = [...own, ...serverMetricsWarnings(server, own)].map((warning) => `warning: ${warning}`);
  const lines = [
    ...head,
    '',
    ...table(['', 'p50', 'p95'], latency),
    '',
    ...tail,
    ...failureLines(doc),
    ...(warnings.length > 0 ? ['', ...warnings] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** `servebench.records_file` (`--records`) in one row: where the per-request rows are; none without one. */
function recordsFileRows(doc: Doc): [string, string][] {
  const label = asDoc(get(doc, 'servebench', 'records_file'));
  if (typeof label['path'] !== 'string') return [];
  const where =
    label['inline'] === false ? 'the rows and failures are only there' : 'the rows and failures are inline too';
  return [['records file', `${label['path']}, ${text(label['rows'])} rows (${where})`]];
}

/** A conversation run's `servebench.conversations` (docs/conversations.md) in two rows, three for agent sessions; none for other runs. */
function conversationsLines(doc: Record<string, unknown>): [string, string][] {
  const parsed = conversationsBlockSchema.safeParse(
    (doc['servebench'] as Record<string, unknown> | undefined)?.['conversations'],
  );
  if (!parsed.success) return [];
  const c = parsed.data;
  const byTurn = c.by_turn
    .map(
      (t) =>
        `${t.turn_index}: TTFT p50 ${formatDuration(t.ttft_p50_ms)}, cache ${t.mean_prefix_cache_hit === null ? '–' : `${(t.mean_prefix_cache_hit * 100).toFixed(0)} %`}`,
    )
    .join('; ');
  return [
    [
      'conversations',
      `${c.completed}/${c.conversations} completed, ${c.failed_mid_conversation} failed mid-conversation; ${c.turns_sent} turns sent, ${c.turns_not_sent} not sent`,
    ],
    ['by turn', byTurn],
    ...(c.by_step !== undefined
      ? [
          [
            'by step',
            c.by_step
              .map(
                (s) =>
                  `${s.step_kind}: ${s.turns_sent} sent, ${s.tool_results_sent} results, TTFT p50 ${formatDuration(s.ttft_p50_ms)}`,
              )
              .join('; '),
          ] as [string, string],
        ]
      : []),
  ];
}

/** A merged result's shards (`servebench.shards`), in one line, or null for a single-process run. */
function shardsLine(doc: Record<string, unknown>): string | null {
  const servebench = doc['servebench'];
  if (typeof servebench !== 'object' || servebench === null) return null;
  const shards = (servebench as Record<string, unknown>)['shards'] as
    | { count?: unknown; merged?: unknown; complete?: unknown; missing?: unknown; alignment?: Record<string, unknown> }
    | undefined;
  if (typeof shards !== 'object' || shards === null) return null;
  const alignment = shards.alignment ?? {};
  const spread = typeof alignment['start_spread_ms'] === 'number' ? alignment['start_spread_ms'].toFixed(2) : '?';
  const uncertainty =
    typeof alignment['max_uncertainty_ms'] === 'number' ? ` ± ${alignment['max_uncertainty_ms'].toFixed(2)} ms` : '';
  const missing =
    Array.isArray(shards.missing) && shards.missing.length > 0 ? `, missing ${shards.missing.join(', ')}` : '';
  return `${String(shards.merged)} of ${String(shards.count)} merged${shards.complete === false ? ' (partial)' : ''}${missing}; started within ${spread} ms${uncertainty} (${String(alignment['mode'] ?? '?')})`;
}

/** The API path the run drove (`servebench.config.endpoint`, docs/endpoints.md); files without one drove chat. */
function apiPath(doc: Doc): string {
  const config = asDoc(asDoc(doc['servebench'])['config']);
  const endpoint = config['endpoint'];
  const name =
    typeof endpoint === 'string' && (ENDPOINTS as readonly string[]).includes(endpoint)
      ? (endpoint as Endpoint)
      : 'chat';
  return ENDPOINT_PATHS[name];
}
