/**
 * A small parser of the Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/), also reading what OpenMetrics
 * adds to it on the wire: the `# EOF` line, `_created` samples and exemplars (all three ignored).
 *
 * Why not a library: the npm candidate, `parse-prometheus-text-format` 1.1.1, declares no types
 * in its package.json, builds with 2019 tooling (Babel ^7.5.5, Rollup ^1.19 in its
 * devDependencies) and throws an `InvalidLineError` at the first malformed `# HELP`/`# TYPE` line
 * (its src/index.js), so one bad line from a server would lose the whole scrape. A scrape here must
 * never throw and must keep every good line, so the parser is ours: one pass over the lines, each
 * line either read whole or skipped and named in `problems`.
 *
 * What is read: `# TYPE name type` (the first one for a name wins), `# HELP` and other comments
 * (skipped), samples `name{label="value",...} value [timestamp]` with metric names that may hold
 * colons, label values with the escapes `\\`, `\"` and `\n`, values as Go's ParseFloat writes
 * them in practice (decimals, exponents, `NaN`, `+Inf`, `-Inf`), LF or CRLF line ends and blank
 * lines. A line that does not fit is skipped whole: a broken line never yields a sample.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

export interface Exposition {
  /** `# TYPE` per metric family name. */
  types: Map<string, MetricType>;
  /** Every well-formed sample, in text order. */
  samples: Sample[];
  /** One line each, `line N: what`, at most {@link MAX_PROBLEMS}. */
  problems: string[];
}

export const MAX_PROBLEMS = 10;

/** A problem's excerpt of the line is cut here, so a huge garbage line cannot make a huge note. */
const EXCERPT_CHARS = 60;

/** OpenMetrics types a 0.0.4 reader has no use for; read as untyped rather than refused. */
const TYPE_NAMES: Readonly<Record<string, MetricType>> = {
  counter: 'counter',
  gauge: 'gauge',
  histogram: 'histogram',
  summary: 'summary',
  untyped: 'untyped',
  unknown: 'untyped',
  gaugehistogram: 'untyped',
  info: 'untyped',
  stateset: 'untyped',
};

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const METRIC_NAME_START = /[a-zA-Z_:]/;
const METRIC_NAME_CHAR = /[a-zA-Z0-9_:]/;
const LABEL_NAME_START = /[a-zA-Z_]/;
const LABEL_NAME_CHAR = /[a-zA-Z0-9_]/;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

class LineError extends Error {}

/** Parses one exposition; never throws. */
export function parseExposition(text: string): Exposition {
  const types = new Map<string, MetricType>();
  const samples: Sample[] = [];
  const problems: string[] = [];
  const problem = (lineNumber: number, what: string): void => {
    if (problems.length < MAX_PROBLEMS) problems.push(`line ${lineNumber}: ${what}`);
  };

  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const line = trimBlanks(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    if (line === '') continue;
    if (line.startsWith('#')) {
      if (/^#\s*EOF$/.test(line)) break;
      const error = readComment(line, types);
      if (error !== null) problem(i + 1, error);
      continue;
    }
    try {
      samples.push(readSample(line));
    } catch (error) {
      if (!(error instanceof LineError)) throw error;
      problem(i + 1, `${error.message} (${excerpt(line)})`);
    }
  }
  return { types, samples: withoutCreated(samples, types), problems };
}

/** Reads a comment line: a TYPE line sets a type; HELP and free comments are skipped. Returns a problem or null. */
function readComment(line: string, types: Map<string, MetricType>): string | null {
  const tokens = line
    .slice(1)
    .trim()
    .split(/[ \t]+/);
  if (tokens[0] !== 'TYPE') return null;
  const [, name, type, ...rest] = tokens;
  if (name === undefined || !METRIC_NAME.test(name))
    return `a TYPE line without a valid metric name (${excerpt(line)})`;
  const known = type === undefined ? undefined : TYPE_NAMES[type];
  if (known === undefined || rest.length > 0) return `a TYPE line with an unknown type (${excerpt(line)})`;
  if (types.has(name)) return `a second TYPE line for ${name} (the first one holds)`;
  types.set(name, known);
  return null;
}

/** Reads `name{labels} value [timestamp] [# exemplar]`; throws a LineError naming what is wrong. */
function readSample(line: string): Sample {
  let at = 0;
  if (!METRIC_NAME_START.test(line[0] ?? '')) throw new LineError('not a metric name');
  while (at < line.length && METRIC_NAME_CHAR.test(line[at]!)) at++;
  const name = line.slice(0, at);
  let labels: Record<string, string> = {};
  const brace = skipBlanks(line, at);
  if (line[brace] === '{') {
    const read = readLabels(line, brace + 1);
    labels = read.labels;
    at = read.end;
  } else if (at < line.length && !/[ \t]/.test(line[at]!)) {
    throw new LineError(`unexpected character after ${name}`);
  }
  const rest = line.slice(at);
  const [valueText, second, third] = rest.trim().split(/[ \t]+/);
  if (valueText === undefined || valueText === '') throw new LineError(`no value for ${name}`);
  const value = parseValue(valueText);
  if (value === null) throw new LineError(`not a number: ${excerpt(valueText)}`);
  // An optional timestamp, then an optional OpenMetrics exemplar (` # {labels} value [timestamp]`),
  // which is not the sample's and is ignored.
  if (second !== undefined && second !== '#') {
    if (parseValue(second) === null) throw new LineError('a timestamp that is not a number');
    if (third !== undefined && third !== '#') throw new LineError('unexpected text after the timestamp');
  }
  return { name, labels, value };
}

/** Reads the labels after `{` up to its `}`; returns them and the index after `}`. */
function readLabels(line: string, start: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = Object.create(null) as Record<string, string>;
  let at = skipBlanks(line, start);
  while (line[at] !== '}') {
    if (!LABEL_NAME_START.test(line[at] ?? '')) throw new LineError('a label without a valid name');
    const nameStart = at;
    while (at < line.length && LABEL_NAME_CHAR.test(line[at]!)) at++;
    const labelName = line.slice(nameStart, at);
    at = skipBlanks(line, at);
    if (line[at] !== '=') throw new LineError(`label ${labelName} without '='`);
    at = skipBlanks(line, at + 1);
    if (line[at] !== '"') throw new LineError(`label ${labelName} without a quoted value`);
    const read = readQuoted(line, at + 1);
    if (Object.prototype.hasOwnProperty.call(labels, labelName)) throw new LineError(`label ${labelName} twice`);
    labels[labelName] = read.value;
    at = skipBlanks(line, read.end);
    if (line[at] === ',') at = skipBlanks(line, at + 1);
    else if (line[at] !== '}') throw new LineError("labels not separated by ','");
  }
  // A plain object for the caller: the null prototype only guarded against a label named __proto__.
  return { labels: { ...labels }, end: at + 1 };
}

/** Reads a label value after its opening quote; returns it unescaped and the index after the closing quote. */
function readQuoted(line: string, start: number): { value: string; end: number } {
  let value = '';
  for (let at = start; at < line.length; at++) {
    const c = line[at]!;
    if (c === '"') return { value, end: at + 1 };
    if (c !== '\\') {
      value += c;
      continue;
    }
    const next = line[++at];
    if (next === '\\') value += '\\';
    else if (next === '"') value += '"';
    else if (next === 'n') value += '\n';
    else throw new LineError(`an unknown escape \\${next ?? ''} in a label value`);
  }
  throw new LineError('a label value without its closing quote');
}

/** A sample value or timestamp as Go's ParseFloat reads the forms exporters write; null if not one. */
function parseValue(text: string): number | null {
  const lower = text.toLowerCase();
  if (lower === 'nan') return NaN;
  if (lower === '+inf' || lower === 'inf') return Infinity;
  if (lower === '-inf') return -Infinity;
  return DECIMAL.test(text) ? Number(text) : null;
}

/**
 * Drops OpenMetrics' `X_created` samples (a counter's, histogram's or summary's creation time),
 * which prometheus_client also writes in the 0.0.4 format, as its own gauge family after the
 * counter `X_total`. They are timestamps, not measurements.
 */
function withoutCreated(samples: Sample[], types: Map<string, MetricType>): Sample[] {
  const isCreated = (name: string): boolean => {
    if (!name.endsWith('_created')) return false;
    const base = name.slice(0, -'_created'.length);
    const type = types.get(base);
    return type === 'counter' || type === 'histogram' || type === 'summary' || types.get(`${base}_total`) === 'counter';
  };
  const created = new Set(samples.filter((s) => isCreated(s.name)).map((s) => s.name));
  if (created.size === 0) return samples;
  for (const name of created) types.delete(name);
  return samples.filter((s) => !created.has(s.name));
}

function trimBlanks(text: string): string {
  return text.replace(/^[ \t]+|[ \t]+$/g, '');
}

function skipBlanks(line: string, at: number): number {
  while (line[at] === ' ' || line[at] === '\t') at++;
  return at;
}

function excerpt(text: string): string {
  return text.length <= EXCERPT_CHARS ? text : `${text.slice(0, EXCERPT_CHARS)}…`;
}
