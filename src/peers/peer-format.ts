/**
 * What a reader of one tool's format provides (read-peer.ts lists them in PEER_FORMATS): its
 * field table (docs/interop.md is generated from it), how it recognises a run of its format, and
 * how it reads the run's facts and per-request rows. Figures are taken from the field table;
 * every field neither a figure nor a fact field is kept as unmapped.
 */
import type { PeerFormatName } from './format-names.js';
import type { FieldSpec, PeerFacts, PeerRow } from './peer-run.js';

export interface PeerFormat {
  /** `--format` name. */
  name: PeerFormatName;
  /** The tool, e.g. `sglang-bench-serving`. */
  tool: string;
  /** The version of this reader: bumped when what it reads or how changes. */
  readerVersion: number;
  /** Which of the tool's files it reads (docs/interop.md). */
  files: string;
  /** Every figure field with its definition (docs/interop.md). */
  fields: readonly FieldSpec[];
  /** Figures whose names depend on the run (e.g. configurable percentiles), read like `fields`; not in docs/interop.md. */
  dynamicFields?(run: Record<string, unknown>): FieldSpec[];
  /** Fields read as facts or rows (not figures, not unmapped). */
  factFields: readonly string[];
  /** Whether a parsed run (one JSON object) is of this format. */
  detect(run: Record<string, unknown>): boolean;
  facts(run: Record<string, unknown>): PeerFacts;
  rows(run: Record<string, unknown>): PeerRow[] | null;
  toolVersion(run: Record<string, unknown>): string | null;
  /** A run whose figures are nested: the run with every figure under its dotted path (applied before anything else). */
  flatten?(run: Record<string, unknown>): Record<string, unknown>;
  /** A file that is a JSON array (per-request rows): the array as one run of this format, or null when it is not one. */
  fromArray?(array: unknown[]): Record<string, unknown> | null;
  /**
   * A JSON document (an object, or an array) that holds runs of this format (e.g. GuideLLM's
   * `benchmarks`, a vLLM sweep's array of runs): each run, with a label for it (e.g. `benchmark
   * 2`), or null when the document is not such a file. Throws an InputFileError naming `file` when
   * it is one but cannot be read.
   */
  runsOf?(
    document: Record<string, unknown> | unknown[],
    file?: string,
  ): { run: Record<string, unknown>; label: string }[] | null;
  /**
   * A format whose files are not JSON (CSV, YAML, or JSON Lines that make one run): the runs of
   * `text`, each with its label (null for a file of one run), when it is a file of this format
   * (told from its first lines), null when it is not one. Throws an InputFileError naming `file`
   * when it is one but cannot be read.
   */
  parseText?(text: string, file: string): { run: Record<string, unknown>; label: string | null }[] | null;
  /**
   * When the per-request rows are a sample of the requests the run counted (the tool kept only
   * some): what was kept of what, e.g. `1 of 46 successful, 0 of 1 incomplete`. servebench then
   * recomputes nothing from them (a sample's percentiles are not the run's). Null otherwise.
   */
  rowsSample?(run: Record<string, unknown>): string | null;
  /**
   * When `run` is this tool's but of a layout newer than this reader knows (it declares a schema
   * or format version past the known ones): what it declares, e.g. `schema_version 2.0 (this
   * reader knows 1.x)`. Such a run is refused rather than guessed at. Null otherwise.
   */
  newerLayout?(run: Record<string, unknown>): string | null;
}
