/**
 * What a reader of one tool's format provides (read-peer.ts lists them in PEER_FORMATS): its
 * field table (docs/interop.md is generated from it), how it recognises a run of its format, and
 * how it reads the run's facts and per-request rows. Figures are taken from the field table;
 * every field neither a figure nor a fact field is kept as unmapped.
 */
import type { FieldSpec, PeerFacts, PeerRow } from './peer-run.js';

export interface PeerFormat {
  /** `--format` name. */
  name: string;
  /** The tool, e.g. `sglang-bench-serving`. */
  tool: string;
  /** The version of this reader: bumped when what it reads or how changes. */
  readerVersion: number;
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
}
