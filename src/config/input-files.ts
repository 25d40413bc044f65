/**
 * The input files whose content a run uses after its configuration is resolved — `--dataset`,
 * `--trace` — read and validated here, by `resolveRunConfig`, so that a missing
 * or malformed one is refused before anything is sent (the other input files, `--manifest`,
 * `--api-key-file` and a `--context-buckets` file, decide flags and are read by
 * `resolveRunConfig` as it goes; `--sim-config` configures the CLI's embedded simulator and is
 * read by the CLI, cli/embedded-sim.ts). The stages take the content from here and never
 * open these files again.
 */
import type { DatasetRow } from '../workload/dataset.js';
import { loadDataset } from './dataset-file.js';
import { loadTrace, type TraceEntry } from '../schedule/trace.js';
import type { ConversationSpec } from '../workload/conversation.js';
import { loadConversations } from './conversations-file.js';

/** The content of a run's input files, each null when its flag was not given. */
export interface RunInputs {
  dataset: DatasetRow[] | null;
  trace: TraceEntry[] | null;
  /** `--conversations`; absent when no caller asked (a configuration made before the flag existed). */
  conversations?: ConversationSpec[] | null;
}

/** Absolute paths of the files to read, null for a flag not given. */
export interface RunInputPaths {
  dataset: string | null;
  trace: string | null;
  conversations?: string | null;
}

/** Reads every file in `paths`; each problem is one InputFileError naming the file (and line). */
export function loadRunInputs(paths: RunInputPaths): RunInputs {
  return {
    dataset: paths.dataset === null ? null : loadDataset(paths.dataset),
    trace: paths.trace === null ? null : loadTrace(paths.trace),
    ...(paths.conversations != null ? { conversations: loadConversations(paths.conversations) } : {}),
  };
}
