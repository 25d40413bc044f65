/**
 * Reading another tool's result file (docs/interop.md): the format is told from the content (or
 * forced with `--format`), and each run of the file becomes one normalised {@link PeerRun}. A file
 * no reader knows, or one a reader cannot read, is one InputFileError naming the file, the run
 * and what did not match.
 */
import { InputFileError } from '../util/errors.js';
import { PEER_FORMAT_NAMES } from './format-names.js';
import { parsePythonJson } from './python-json.js';
import { PEER_RUN_SCHEMA, type PeerRun } from './peer-run.js';
import { recomputeFigures } from './recompute.js';
import type { PeerFormat } from './peer-format.js';
import { SGLANG_FORMAT } from './sglang.js';
import { LLMPERF_FORMAT } from './llmperf.js';
import { GENAI_BENCH_FORMAT } from './genai-bench.js';
import { VLLM_FORMAT } from './vllm.js';
import { GUIDELLM_FORMAT } from './guidellm.js';
import { AIPERF_FORMAT } from './aiperf.js';
import { INFERENCE_PERF_FORMAT } from './inference-perf.js';

/** Every format servebench reads, in the order detection tries them. */
export const PEER_FORMATS: readonly PeerFormat[] = [
  SGLANG_FORMAT,
  LLMPERF_FORMAT,
  GENAI_BENCH_FORMAT,
  VLLM_FORMAT,
  GUIDELLM_FORMAT,
  AIPERF_FORMAT,
  INFERENCE_PERF_FORMAT,
];

/** Unit factors to servebench's units (ms for times, per second for rates). */
const TO_SERVEBENCH: Record<string, number> = { ms: 1, s: 1000, 'tok/s': 1, 'req/s': 1, 'req/min': 1 / 60 };

/** A figure's value: a number, or (for a field the tool writes as text) a decimal string's number; else null. */
function figureValue(value: unknown, numericString: boolean): number | null {
  if (typeof value === 'number') return value;
  if (numericString && typeof value === 'string' && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value)) return Number(value);
  return null;
}

/** The normalised run of `run` read as `format`; `entry` says which run of the file it is. */
function normalise(format: PeerFormat, parsed: Record<string, unknown>, entry: string | null): PeerRun {
  const run = format.flatten?.(parsed) ?? parsed;
  const specs = [...format.fields, ...(format.dynamicFields?.(run) ?? [])];
  const figures = specs
    .filter((spec) => spec.field in run)
    .map((spec) => {
      const value = run[spec.field];
      return { ...spec, value: figureValue(value, spec.numericString === true) };
    });
  const asServebench: Record<string, number> = {};
  for (const f of figures) {
    const factor = TO_SERVEBENCH[f.unit];
    if (f.same && f.servebench !== null && f.value !== null && factor !== undefined)
      asServebench[f.servebench] = f.value * factor;
  }
  const taken = new Set([...specs.map((f) => f.field), ...format.factFields]);
  const unmapped = Object.fromEntries(Object.entries(run).filter(([key]) => !taken.has(key)));
  const rows = format.rows(run);
  const sample = rows === null ? null : (format.rowsSample?.(run) ?? null);
  return {
    schema: PEER_RUN_SCHEMA,
    tool: format.tool,
    format: format.name,
    reader_version: format.readerVersion,
    tool_version: format.toolVersion(run),
    entry,
    facts: format.facts(run),
    figures,
    as_servebench: asServebench,
    recomputed: rows === null || sample !== null ? null : recomputeFigures(rows),
    rows,
    rows_sample: sample,
    unmapped,
  };
}

/** The JSON values of `text`: one document, or one per line (JSONL). */
function documents(text: string, file: string): { value: unknown; entry: string | null }[] {
  try {
    return [{ value: parsePythonJson(text), entry: null }];
  } catch {
    // Not one document: JSONL, one run per line.
  }
  const out: { value: unknown; entry: string | null }[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      out.push({ value: parsePythonJson(raw), entry: `line ${i + 1}` });
    } catch (error) {
      throw new InputFileError(`${file}:${i + 1}`, `not valid JSON (${(error as Error).message})`);
    }
  });
  return out;
}

/**
 * The runs of a peer tool's file. `format` forces a reader (`--format`); otherwise each run is
 * given to the first reader that recognises it. Throws an InputFileError naming the file.
 */
export function readPeerText(text: string, file: string, format: string | null = null): PeerRun[] {
  try {
    return readRuns(text, file, format);
  } catch (error) {
    // A problem quotes the file's own text, which may hold line breaks: the refusal stays one line.
    if (error instanceof InputFileError && /[\r\n]/.test(error.message))
      throw new InputFileError(error.file.replace(/\s+/g, ' '), error.problem.replace(/\s*[\r\n]+\s*/g, ' '));
    throw error;
  }
}

function readRuns(text: string, file: string, format: string | null): PeerRun[] {
  const forced = format === null ? null : PEER_FORMATS.find((f) => f.name === format);
  if (format !== null && forced === undefined)
    throw new InputFileError(file, `unknown --format '${format}' (${PEER_FORMAT_NAMES.join(', ')})`);
  for (const textual of forced != null ? [forced] : PEER_FORMATS) {
    const runs = textual.parseText?.(text, file) ?? null;
    if (runs === null) continue;
    if (runs.length === 0) throw new InputFileError(file, `a ${textual.name} file without a run`);
    return runs.map(({ run, label }) => {
      refuseNewerLayout(run, label === null ? file : `${file} (${label})`, [textual]);
      return normalise(textual, run, label);
    });
  }
  const docs = documents(text, file).flatMap((doc) => containedRuns(doc, forced ?? null, file));
  if (docs.length === 0) throw new InputFileError(file, 'empty file');
  return docs.map(({ value, entry }) => {
    const where = entry === null ? file : `${file} (${entry})`;
    if (Array.isArray(value)) return arrayRun(value, where, entry, forced ?? null);
    if (typeof value !== 'object' || value === null) throw new InputFileError(where, 'expected a JSON object per run');
    const run = value as Record<string, unknown>;
    refuseNewerLayout(run, where, forced != null ? [forced] : PEER_FORMATS);
    const reader = forced ?? PEER_FORMATS.find((f) => f.detect(f.flatten?.(run) ?? run));
    if (reader === undefined)
      throw new InputFileError(
        where,
        `not a result file servebench reads (anvil-serving, ${PEER_FORMAT_NAMES.join(', ')})`,
      );
    if (forced !== null && forced !== undefined && !forced.detect(forced.flatten?.(run) ?? run))
      throw new InputFileError(where, `not a ${forced.name} result: its summary fields are missing`);
    return normalise(reader, run, entry);
  });
}

/** A document that holds several runs (a format's `runsOf`) as one entry per run; any other document as it is. */
function containedRuns(
  doc: { value: unknown; entry: string | null },
  forced: PeerFormat | null,
  file: string,
): { value: unknown; entry: string | null }[] {
  if (typeof doc.value !== 'object' || doc.value === null) return [doc];
  for (const format of forced !== null ? [forced] : PEER_FORMATS) {
    const where = doc.entry === null ? file : `${file} (${doc.entry})`;
    const runs = format.runsOf?.(doc.value as Record<string, unknown> | unknown[], where) ?? null;
    if (runs !== null)
      return runs.map(({ run, label }) => ({
        value: run,
        entry: doc.entry === null ? label : `${doc.entry}, ${label}`,
      }));
  }
  return [doc];
}

/** Refuses a run that one of `formats` finds to be of a layout newer than it knows. */
function refuseNewerLayout(run: Record<string, unknown>, where: string, formats: readonly PeerFormat[]): void {
  for (const format of formats) {
    const declared = format.newerLayout?.(run) ?? null;
    if (declared !== null)
      throw new InputFileError(
        where,
        `a ${format.tool} result of a newer layout than servebench's '${format.name}' reader v${format.readerVersion} knows: ${declared}; not read rather than guessed at`,
      );
  }
}

/** A file that is a JSON array: one run of the first format (or the forced one) that takes the array as its rows. */
function arrayRun(value: unknown[], where: string, entry: string | null, forced: PeerFormat | null): PeerRun {
  for (const format of forced !== null ? [forced] : PEER_FORMATS) {
    const run = format.fromArray?.(value) ?? null;
    if (run !== null) return normalise(format, run, entry);
  }
  throw new InputFileError(
    where,
    forced !== null
      ? `not a ${forced.name} file: a JSON array of its per-request records was expected`
      : `a JSON array that is no known tool's per-request records (${PEER_FORMAT_NAMES.join(', ')})`,
  );
}
