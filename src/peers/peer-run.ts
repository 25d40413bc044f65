/**
 * One run of another benchmark tool, as servebench reads it (docs/interop.md). Every figure keeps
 * the tool's own name, unit and definition; a figure is also given under servebench's name only
 * when its definition is servebench's (`same`), and otherwise says how it differs. Where the
 * file holds per-request rows, servebench recomputes its own figures from them (recompute.ts), so
 * runs of two tools can be compared on one definition. Nothing of the file is dropped: the fields
 * no figure or fact takes are kept in `unmapped`.
 */

/** The normalised view's schema name, written by `show --json`. */
export const PEER_RUN_SCHEMA = 'servebench.peer-run/v1';

/** The units peer tools write figures in. */
export type PeerUnit = 'ms' | 's' | 'tok/s' | 'req/s' | 'req/min' | 'count' | 'tokens' | 'ratio';

/** What a tool's field means, written once per tool in its reader's field table (docs/interop.md is made from them). */
export interface FieldSpec {
  /** The tool's own key, e.g. `median_ttft_ms`. */
  field: string;
  unit: PeerUnit;
  /** What the tool computes, in servebench's words. */
  meaning: string;
  /** The nearest servebench figure (a result `metrics` key or a recomputed name), or null. */
  servebench: string | null;
  /** True when the tool's definition is servebench's: then the value is given under that name too. */
  same: boolean;
  /** When not the same: how the definitions differ. */
  difference: string | null;
  /** Where the definition comes from: the tool's docs or source (repository, path, commit). */
  source: string;
  /** The tool writes this number as a decimal string (e.g. `"550"`): it is read as the number it spells. */
  numericString?: true;
}

/** One summary figure of the file: its field's definition and its value in the tool's unit (null when absent or not a number). */
export interface PeerFigure extends FieldSpec {
  value: number | null;
}

/** One request of a file with per-request rows, in servebench's units (ms); null where the tool did not record it. */
export interface PeerRow {
  ok: boolean;
  ttft_ms: number | null;
  /**
   * Request start to the first output of any kind (reasoning or content), when the tool tells it
   * apart from the first content (`ttft_ms`); absent or null when it does not, and then the first
   * output is taken to be the first content.
   */
  ttfo_ms?: number | null;
  /** Request start to its last output (the tool's end of request). */
  e2e_ms: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  /** The gaps between output chunks after the first, when the tool kept them. */
  chunk_gaps_ms: number[] | null;
  /** The tool's error text for a failed request. */
  error: string | null;
}

/** The facts every run has, null where the tool did not record them ("not recorded", never "equal"). */
export interface PeerFacts {
  model: string | null;
  /** The API or backend the tool drove, in the tool's words (e.g. `vllm-chat`, `openai`). */
  backend: string | null;
  /** The prompt source (dataset name or shape). */
  dataset: string | null;
  /** Closed-loop concurrency cap, or null. */
  concurrency: number | null;
  /** Offered request rate, requests/s; Infinity for "all at once"; null when not recorded. */
  rate_rps: number | null;
  /** Wall time of the measured part, s. */
  duration_s: number | null;
  /** Requests that completed, in the tool's sense. */
  successes: number | null;
  /** Requests that failed, in the tool's sense (null when the tool does not count them). */
  failures: number | null;
  /** What the tool counts as a failure. */
  failure_definition: string;
  input_tokens_total: number | null;
  output_tokens_total: number | null;
}

/** A normalised run. */
export interface PeerRun {
  schema: typeof PEER_RUN_SCHEMA;
  /** The tool, e.g. `sglang-bench-serving`. */
  tool: string;
  /** The reader's format name (`--format`). */
  format: string;
  /** The version of servebench's reader of that format: bumped when the reading changes. */
  reader_version: number;
  /** The tool's version, when the file says. */
  tool_version: string | null;
  /** Which run of the file this is, e.g. `line 2` (a file may hold several), or null. */
  entry: string | null;
  facts: PeerFacts;
  /** Every summary figure the reader knows, with its definition. */
  figures: PeerFigure[];
  /** The figures whose definition is servebench's, under servebench's names, in its units (ms, per s). */
  as_servebench: Record<string, number>;
  /** servebench's figures recomputed from the per-request rows (recompute.ts), or null without rows (or with a sample of them). */
  recomputed: Record<string, number | null> | null;
  /** The per-request rows, or null. */
  rows: PeerRow[] | null;
  /**
   * When the rows are a sample of the run's requests (the tool kept only some): what was kept of
   * what. `recomputed` is then null: a sample's percentiles are not the run's.
   */
  rows_sample: string | null;
  /** Every field of the run that no figure, fact or row takes, as the file had it. */
  unmapped: Record<string, unknown>;
}
