/**
 * A saved plan runs only against a target that serves what it was made for: the same model, and
 * (unless the plan's window was given with `--max-model-len`) the same context window. Otherwise its prompt
 * sizes and caps would not be the ones planned, so the run is refused with one line naming the field.
 */
import type { Dispatcher } from 'undici';
import type { RunPlan } from '../plan/run-plan.js';
import { UsageError } from '../util/errors.js';
import { probeModels } from '../target/window.js';

export async function checkPlanFitsTarget(
  plan: RunPlan,
  baseUrl: string,
  dispatcher: Dispatcher,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  const { model, window_tokens: window, window_source: source } = plan.identity;
  const { 'content-type': _ignored, ...probeHeaders } = headers;
  const probe = await probeModels(dispatcher, baseUrl, model, probeHeaders, signal);
  if (signal.aborted) return;
  if (probe.listed.length > 0 && !probe.listed.includes(model)) {
    throw new UsageError(
      `--plan: the plan's identity.model is '${model}', but ${baseUrl}/models lists ${probe.listed.slice(0, 5).join(', ')}`,
    );
  }
  // A window given with --max-model-len is the plan's own choice, whatever the server says.
  if (source !== 'flag' && probe.window !== window) {
    throw new UsageError(
      `--plan: the plan's identity.window_tokens is ${window ?? 'unknown'}, but ${baseUrl} reports a window of ${probe.window ?? 'unknown'} for ${model}`,
    );
  }
}
