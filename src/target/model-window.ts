/**
 * Which model to benchmark and its context window: `--model`/`--max-model-len` when both are
 * given (nothing is asked), else the server's `/models` (src/target/window.ts).
 */
import type { Dispatcher } from 'undici';
import { UsageError } from '../util/errors.js';
import { probeModels, type ModelsProbe } from './window.js';

/** Asks the server only for what the flags leave open. */
export async function resolveModelAndWindow(
  wanted: { model: string | null; maxModelLen: number },
  dispatcher: Dispatcher,
  baseUrl: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<ModelsProbe> {
  if (wanted.maxModelLen > 0 && wanted.model !== null) {
    return { model: wanted.model, window: wanted.maxModelLen, windowSource: 'none', listed: [], problem: null };
  }
  const { 'content-type': _ignored, ...probeHeaders } = headers;
  return probeModels(dispatcher, baseUrl, wanted.model, probeHeaders, signal);
}

/** The probe's model, or the one-line refusal when none could be chosen. */
export function chosenModel(baseUrl: string, probe: ModelsProbe): string {
  if (probe.model !== null) return probe.model;
  if (probe.problem !== null && probe.listed.length === 0)
    throw new UsageError(`--model is required: ${baseUrl}/models gave no model list (${probe.problem})`);
  throw new UsageError(
    `--model is required: the server lists ${probe.listed.length} models (${probe.listed.slice(0, 5).join(', ')})`,
  );
}
