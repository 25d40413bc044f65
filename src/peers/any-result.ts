/**
 * A result file of any tool: servebench's own format (any era of `anvil-serving.benchmark/v1`,
 * result/io.ts) or another tool's (read-peer.ts). The own format is tried first unless a peer
 * format is forced. When neither reads the file, the problem shown is the own format's for a file
 * that claims to be one (it names the schema or has its rows), else the peer readers'.
 */
import { parseResultText, type LoadedResult } from '../result/io.js';
import { InputFileError } from '../util/errors.js';
import type { PeerRun } from './peer-run.js';
import { readPeerText } from './read-peer.js';

export type AnyResult = { kind: 'servebench'; loaded: LoadedResult } | { kind: 'peer'; runs: PeerRun[] };

/** Reads `text` (the content of `file`); `format` forces a peer reader (`--format`). Throws an InputFileError. */
export function readAnyResult(file: string, text: string, format: string | null = null): AnyResult {
  if (format !== null) return { kind: 'peer', runs: readPeerText(text, file, format) };
  let own: InputFileError;
  try {
    return { kind: 'servebench', loaded: parseResultText(file, text) };
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    own = error;
  }
  try {
    return { kind: 'peer', runs: readPeerText(text, file) };
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    throw /anvil-serving\.benchmark|"request_timings"/.test(text) ? own : error;
  }
}

/** JSON text of a value whose numbers may be non-finite: those become the strings `"Infinity"`, `"-Infinity"`, `"NaN"`. */
export function peerJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v), 2);
}
