/**
 * docs/metrics.md, rendered from the metric tables (src/metrics/definitions.ts,
 * src/metrics/extended-definitions.ts) and, for what other tools call each figure, from the peer
 * readers' field tables (src/peers/, through peer-names.ts, as docs/interop.md is). `npm run docs`
 * writes it; test/docs-drift.test.ts fails when the file and the tables disagree. It lives here,
 * not in src/metrics/, because metrics/ may not import peers/ (docs/architecture.md, "Stages")
 * and nothing at run time needs the Markdown.
 */
import { ROW_FIELDS, RUN_METRICS, type Definition } from '../../src/metrics/definitions.js';
import {
  ENTRIES,
  EXTENDED_RULES,
  FAMILIES,
  familyKeys,
  type Entry,
  type Family,
  type FamilyUnit,
} from '../../src/metrics/extended-definitions.js';
import { peerMappings, relationMark, type PeerMapping } from './peer-names.js';

const cell = (text: string): string => text.replace(/\|/g, '\\|');

function markdownTable(entries: [string, Definition<unknown, never>][]): string {
  const lines = ['| key | unit | written as | definition |', '|---|---|---|---|'];
  for (const [key, d] of entries) {
    const written = `${d.serialized}${d.nullable ? ' or null' : ''}`;
    const name = d.extension ? `\`${key}\` (servebench extension)` : `\`${key}\``;
    lines.push(`| ${name} | ${d.unit} | ${written} | ${cell(d.definition)} |`);
  }
  return lines.join('\n');
}

/**
 * The peer fields mapped to each servebench figure, the figures in RUN_METRICS order (any other
 * figure a reader names after them, by name), each figure's fields in the readers' order.
 */
function peerNamesByFigure(): Map<string, PeerMapping[]> {
  const byFigure = new Map<string, PeerMapping[]>();
  const mappings = peerMappings();
  const others = [...new Set(mappings.map((m) => m.servebench))].filter((name) => !(name in RUN_METRICS)).sort();
  for (const figure of [...Object.keys(RUN_METRICS), ...others]) {
    const fields = mappings.filter((m) => m.servebench === figure);
    if (fields.length > 0) byFigure.set(figure, fields);
  }
  return byFigure;
}

/** The section naming, per servebench figure and tool, the tool's fields that stand for it. */
function renderPeerNames(): string {
  const lines = [
    '## What other tools call these figures',
    '',
    'The fields of other tools’ result files that servebench reads as one of the figures above, from',
    'the readers’ field tables (src/peers/), which docs/interop.md is generated from too; there each',
    'field has the tool’s definition, how it differs from servebench’s and its source. `=` marks a',
    'field whose definition is servebench’s, `≈` the tool’s nearest figure of another definition.',
    'A figure not listed has no counterpart in any reader.',
    '',
    '| servebench figure | tool (`--format`) | the tool’s fields |',
    '|---|---|---|',
  ];
  for (const [figure, fields] of peerNamesByFigure()) {
    const formats = [...new Set(fields.map((f) => f.format))];
    for (const format of formats) {
      const ofFormat = fields.filter((f) => f.format === format);
      const names = ofFormat.map((f) => `${relationMark(f.same)} \`${f.field}\``).join(', ');
      lines.push(`| \`${figure}\` | ${ofFormat[0]!.tool} (\`${format}\`) | ${cell(names)} |`);
    }
  }
  return lines.join('\n');
}

function familyCell(f: Family): string {
  const k = familyKeys(f.base, f.unit);
  const pct = k.percentiles[0]?.replace(/p50$/, '{p50,p90,p95,p99,p999}') ?? '';
  return `\`${f.section}.\`{\`${k.samples}\`, \`${k.mean}\`, \`${pct}\`, \`${k.max}\`}`;
}

/** How an entry is written: its kind, the values a string takes, and whether the key may be absent. */
function writtenCell(e: Entry): string {
  const choices = e.choices === undefined ? '' : `: ${e.choices.map((c) => `\`${c}\``).join(' or ')}`;
  return `${e.written}${choices}${e.optional === true ? ', or absent' : ''}`;
}

const FAMILY_UNITS: Readonly<Record<FamilyUnit, string>> = { ms: 'ms', tok_s: 'tok/s', tokens: 'tokens' };

/** The extension section of docs/metrics.md. */
function renderExtendedMarkdown(): string {
  const lines = [
    '## Extension figures (`servebench.metrics`)',
    '',
    'Computed by `computeExtendedMetrics` (src/metrics/extended.ts) from the request results;',
    'generated from `src/metrics/extended-definitions.ts`. Percentiles are nearest rank as above.',
    'Each distribution family has `<name>_samples` (int), a mean, p50, p90, p95, p99, p99.9 and the max;',
    'no samples gives 0 and nulls.',
    '',
  ];
  for (const [title, text] of EXTENDED_RULES) lines.push(`**${title}.** ${text}`, '');
  lines.push('| key | unit | written as | definition |', '|---|---|---|---|');
  for (const f of FAMILIES) {
    const written =
      f.unit === 'tokens'
        ? 'samples, max: int (max null if none); others float or null'
        : 'samples: int; others float or null';
    lines.push(`| ${familyCell(f)} | ${FAMILY_UNITS[f.unit]} | ${written} | ${cell(f.definition)} |`);
  }
  for (const e of ENTRIES) lines.push(`| \`${e.path}\` | ${e.unit} | ${writtenCell(e)} | ${cell(e.definition)} |`);
  lines.push('');
  return lines.join('\n');
}

/** The whole of docs/metrics.md: the reference tables, what other tools call their figures, and the extension table. */
export function renderMetricsMarkdown(): string {
  return [
    '# servebench metrics',
    '',
    'Generated from `src/metrics/definitions.ts` (by `npm run docs`); do not edit by hand.',
    '',
    'Percentiles are nearest rank: sort the non-null values ascending and take the value at',
    '0-based index max(0, ceil(q·k/100) − 1) — no interpolation, p50 of an even count is the lower',
    'middle value. Times are measured client-side from the moment the request is written to its socket',
    '(with `--cold-connections`, from just before it is handed to the HTTP stack, connect included).',
    '',
    '## Per-request fields (`request_timings[]`)',
    '',
    markdownTable(Object.entries(ROW_FIELDS)),
    '',
    '## Run-level figures (`metrics`)',
    '',
    markdownTable(Object.entries(RUN_METRICS)),
    '',
    renderPeerNames(),
    '',
    renderExtendedMarkdown(),
  ].join('\n');
}
