/**
 * One run of any tool as the cross-tool comparison sees it (compare-peer.ts, docs/interop.md):
 * what it records of the workload's identity, its per-request rows in servebench's units, and its
 * summary figures under servebench's names, each with the definition it was computed by. A
 * servebench result and a peer run (read-peer.ts) both become one; a field a tool does not record
 * is "not recorded", with the reason, and never taken as equal.
 */
import { get, str, type RunView } from '../result/run-view.js';
import { identityValue, type FieldValue } from '../result/identity.js';
import { RUN_METRICS } from '../metrics/definitions.js';
import { finiteOrNull } from '../util/numbers.js';
import type { PeerRow, PeerRun } from './peer-run.js';
import { nearestOtherFigure } from './servebench-figures.js';

export { CROSS_IDENTITY_FIELDS, TOKEN_MEAN_TOLERANCE_PCT } from './cross-identity.js';

/** One summary figure of a run, under servebench's name, in servebench's unit. */
export interface CrossFigure {
  value: number;
  /** What the figure is, in the run's tool's terms: its field and its definition. */
  definition: string;
  /** True when the definition is servebench's; false when it only comes nearest. */
  same: boolean;
}

/** A run of any tool, ready to be compared. */
export interface CrossRun {
  /** The file as given, with the run's entry when the file holds several (`x.jsonl (line 2)`). */
  file: string;
  /** `servebench`, or the peer tool. */
  tool: string;
  identity: ReadonlyMap<string, FieldValue>;
  /** Every request measured (failed ones with `ok` false), or null when the file has none. */
  rows: PeerRow[] | null;
  /** Summary figures by servebench `metrics` key. */
  summary: ReadonlyMap<string, CrossFigure>;
  /** Shown beside the comparison, never compared. */
  provenance: Record<string, unknown>;
}

const known = (value: unknown): FieldValue => ({ known: true, value });
const unknown = (why: string): FieldValue => ({ known: false, why });
const mean = (values: readonly number[]): number | null =>
  values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length;

/** The mean of a token column over the successful rows that have it, or null. */
function rowMean(rows: readonly PeerRow[] | null, key: 'input_tokens' | 'output_tokens'): number | null {
  if (rows === null) return null;
  return mean(rows.flatMap((r) => (r.ok && r[key] !== null ? [r[key]] : [])));
}

/** A servebench result file (any era) as a cross-tool run. */
export function crossFromServebench(view: RunView): CrossRun {
  const identity = new Map<string, FieldValue>();
  // These four mean the same in servebench's own identity table.
  for (const name of ['model', 'load_mode', 'concurrency', 'rate']) identity.set(name, identityValue(name, view));
  const rows = view.hasRows ? servebenchRows(view) : null;
  const metrics = (view.doc['metrics'] ?? {}) as Record<string, unknown>;
  const promptTotal = finiteOrNull(metrics['prompt_tokens']);
  const promptSamples = finiteOrNull(metrics['prompt_token_samples']);
  const completed = finiteOrNull(view.doc['completed']);
  const outputTotal = finiteOrNull(metrics['output_tokens']);
  identity.set(
    'input_tokens_mean',
    tokenMean(
      rowMean(rows, 'input_tokens') ?? (promptTotal !== null && promptSamples ? promptTotal / promptSamples : null),
      'this result records no prompt token counts',
    ),
  );
  identity.set(
    'output_tokens_mean',
    tokenMean(
      rowMean(rows, 'output_tokens') ?? (outputTotal !== null && completed ? outputTotal / completed : null),
      'this result records no output token counts',
    ),
  );
  identity.set('prompt_set', identityValue('prompt_set_id', view));
  const cap = identityValue('max_tokens', view);
  const eos = identityValue('ignore_eos', view);
  identity.set(
    'output_controls',
    cap.known && eos.known
      ? known({ max_tokens: cap.value, ignore_eos: eos.value })
      : unknown(!cap.known ? cap.why : (eos as { why: string }).why),
  );
  identity.set('clock_origin', identityValue('clock_origin', view));
  const summary = new Map<string, CrossFigure>();
  const definitions = RUN_METRICS as Record<string, { definition: string }>;
  for (const [key, value] of Object.entries(metrics)) {
    const v = finiteOrNull(value);
    if (v === null || definitions[key] === undefined) continue;
    summary.set(key, { value: v, definition: `servebench ${key}: ${definitions[key].definition}`, same: true });
  }
  return {
    file: view.file,
    tool: view.servebench === null ? 'anvil-serving' : 'servebench',
    identity,
    rows,
    summary,
    provenance: {
      tool:
        view.servebench === null
          ? 'the reference harness'
          : `servebench ${str(view.servebench['tool_version']) ?? ''}`.trim(),
      reader: null,
      run_date: view.runDate,
      base_url: view.doc['base_url'] ?? null,
      api: view.servebench === null ? 'chat' : (get(view.servebench, 'config', 'endpoint') ?? 'chat'),
      successes: view.doc['completed'] ?? null,
      failures: view.doc['failed'] ?? null,
      failure_definition:
        'a request that did not complete with content: an HTTP error, a transport error, an in-stream error or a timeout',
      duration_s: view.wallMs === null ? null : view.wallMs / 1000,
    },
  };
}

/** A mean token count as an identity value, rounded to what the comparison can tell. */
function tokenMean(value: number | null, why: string): FieldValue {
  return value === null ? unknown(why) : known(Math.round(value * 100) / 100);
}

/** servebench's request rows as peer rows (the comparison recomputes both sides by one definition): the timed rows, then one row per failure. */
function servebenchRows(view: RunView): PeerRow[] {
  const timed: PeerRow[] = view.rows.map((r) => ({
    ok: true,
    ttft_ms: finiteOrNull(r['ttft_ms']),
    ttfo_ms: finiteOrNull(r['time_to_first_output_ms']),
    e2e_ms: finiteOrNull(r['e2e_ms']),
    input_tokens: finiteOrNull(r['prompt_tokens']),
    output_tokens: finiteOrNull(r['output_tokens']),
    chunk_gaps_ms: null,
    error: null,
  }));
  const failures = Array.isArray(view.doc['failures']) ? (view.doc['failures'] as unknown[]) : [];
  const failed: PeerRow[] = failures.map((f) => ({
    ok: false,
    ttft_ms: null,
    e2e_ms: null,
    input_tokens: null,
    output_tokens: null,
    chunk_gaps_ms: null,
    error: str(get(f, 'error_message')) ?? str(get(f, 'error_type')),
  }));
  return [...timed, ...failed];
}

/** A peer run as a cross-tool run; `file` is the path as given. */
export function crossFromPeer(run: PeerRun, file: string): CrossRun {
  const name = run.tool;
  const f = run.facts;
  const identity = new Map<string, FieldValue>();
  identity.set('model', f.model === null ? unknown(`${name} did not record the model`) : known(f.model));
  const open = f.rate_rps !== null && Number.isFinite(f.rate_rps);
  // A rate of Infinity sends every request at once: with a concurrency cap that is a closed loop.
  const closed = !open && f.concurrency !== null;
  identity.set(
    'load_mode',
    open
      ? known('open')
      : closed
        ? known('closed')
        : unknown(`${name} recorded neither a finite rate nor a concurrency`),
  );
  identity.set(
    'concurrency',
    f.concurrency !== null ? known(f.concurrency) : unknown(`${name} did not record a concurrency (or cap)`),
  );
  identity.set(
    'rate',
    open ? known(f.rate_rps) : closed ? known(null) : unknown(`${name} did not record an arrival rate`),
  );
  const rows = run.rows_sample === null ? run.rows : null;
  const inputs = rowMean(rows, 'input_tokens') ?? perSuccess(f.input_tokens_total, f.successes);
  const outputs = rowMean(rows, 'output_tokens') ?? perSuccess(f.output_tokens_total, f.successes);
  identity.set('input_tokens_mean', tokenMean(inputs, `${name} recorded no input token counts`));
  identity.set('output_tokens_mean', tokenMean(outputs, `${name} recorded no output token counts`));
  identity.set('prompt_set', unknown(`${name} does not record which prompts it sent (no hash of their bytes)`));
  identity.set(
    'output_controls',
    unknown(`${name} does not record its completion cap or whether it asked the server to ignore EOS`),
  );
  identity.set('clock_origin', unknown(`${name} does not record where its request clock starts`));
  const summary = new Map<string, CrossFigure>();
  for (const [key, value] of Object.entries(run.as_servebench))
    summary.set(key, { value, definition: sameDefinition(run, key), same: true });
  for (const key of new Set(run.figures.flatMap((f) => (f.servebench === null ? [] : [f.servebench])))) {
    const near = summary.has(key) ? null : nearestOtherFigure(run, key);
    if (near === null) continue;
    const { figure, value } = near;
    summary.set(key, {
      value,
      definition: `${name} ${figure.field}: ${figure.meaning}; differs from servebench's: ${figure.difference ?? 'not the same definition'}`,
      same: false,
    });
  }
  return {
    file: run.entry === null ? file : `${file} (${run.entry})`,
    tool: name,
    identity,
    // A sample of the requests is not the run: its figures are compared on the summaries.
    rows,
    summary,
    provenance: {
      tool: run.tool_version === null ? name : `${name} ${run.tool_version}`,
      reader: `${run.format} v${run.reader_version}`,
      run_date: null,
      base_url: null,
      api: f.backend,
      successes: f.successes,
      failures: f.failures,
      failure_definition: f.failure_definition,
      duration_s: f.duration_s,
    },
  };
}

function perSuccess(total: number | null, successes: number | null): number | null {
  return total !== null && successes !== null && successes > 0 ? total / successes : null;
}

/** The definition of a peer figure that equals servebench's, naming the tool's field. */
function sameDefinition(run: PeerRun, key: string): string {
  const figure = run.figures.find((x) => x.servebench === key && x.same);
  const definitions = RUN_METRICS as Record<string, { definition: string } | undefined>;
  const own = definitions[key]?.definition ?? key;
  return figure === undefined
    ? `${run.tool}: servebench's ${key} (${own})`
    : `${run.tool} ${figure.field}: the same definition as servebench's ${key} (${own})`;
}
