/**
 * Context-window discovery (docs/protocol.md#context-window-discovery) and the prompt budget (docs/protocol.md#prompt-budget). The model's own
 * `/models` entry is preferred; the reference silently fell back to the first entry, servebench
 * records which entry supplied the window (docs/protocol.md#lessons-from-the-references-history item 15).
 */
import type { Dispatcher } from 'undici';
import { getJson } from '../client/transport.js';
import { endpointUrl } from '../client/endpoint.js';

/** What `/models` told us. */
export interface ModelsProbe {
  /** The model to benchmark: the requested one, or the only one listed. */
  model: string | null;
  /** Window from the chosen entry, or null. */
  window: number | null;
  /** Which entry supplied the window: the model's own (`exact`), the first listed (`first-entry`), llama.cpp's `/props` (`props`), or `none`. */
  windowSource: 'exact' | 'first-entry' | 'props' | 'none';
  listed: string[];
  /** Why the probe gave nothing, if it did not answer. */
  problem: string | null;
}

/** Keys read from a `/models` entry, first positive integer wins: vLLM, SGLang/TGI/others, llama.cpp. */
const WINDOW_KEYS = ['max_model_len', 'max_context_length', 'context_length', 'n_ctx'] as const;

/** GET {base}/models with a 15 s timeout; any failure (an aborted `signal` too) gives an unknown window, never an exception. */
export async function probeModels(
  dispatcher: Dispatcher,
  baseUrl: string,
  model: string | null,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<ModelsProbe> {
  const answer = await getJson(dispatcher, endpointUrl(baseUrl, '/models'), headers, 15, undefined, signal);
  if (!answer.ok) return { model, window: null, windowSource: 'none', listed: [], problem: answer.problem };
  const data = (answer.value as { data?: unknown } | null)?.data;
  const entries = Array.isArray(data)
    ? data.filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null && !Array.isArray(e))
    : [];
  const listed = entries.map((e) => e['id']).filter((id): id is string => typeof id === 'string');
  const chosenModel = model ?? (listed.length === 1 ? (listed[0] ?? null) : null);
  const exact = entries.find((e) => e['id'] === chosenModel);
  const entry = exact ?? entries[0];
  const window = entry === undefined ? null : firstPositiveInt(entry);
  if (window === null && entries.length > 0) {
    // llama.cpp serves its per-slot context on /props rather than on /models.
    const props = await probeProps(dispatcher, baseUrl, headers, signal);
    if (props !== null) return { model: chosenModel, window: props, windowSource: 'props', listed, problem: null };
  }
  return {
    model: chosenModel,
    window,
    windowSource: window === null ? 'none' : exact !== undefined ? 'exact' : 'first-entry',
    listed,
    problem: entries.length === 0 ? 'the server listed no models' : null,
  };
}

function firstPositiveInt(entry: Record<string, unknown>): number | null {
  const meta =
    typeof entry['meta'] === 'object' && entry['meta'] !== null ? (entry['meta'] as Record<string, unknown>) : {};
  for (const source of [entry, meta]) {
    for (const key of WINDOW_KEYS) {
      const value = source[key];
      if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
    }
  }
  return null;
}

/** llama.cpp: `GET {origin}/props` → `default_generation_settings.n_ctx` (per slot) or `n_ctx`. */
async function probeProps(
  dispatcher: Dispatcher,
  baseUrl: string,
  headers: Record<string, string>,
  signal: AbortSignal | undefined,
): Promise<number | null> {
  const origin = new URL(baseUrl).origin;
  for (const url of [endpointUrl(baseUrl, '/props'), `${origin}/props`]) {
    const answer = await getJson(dispatcher, url, headers, 5, undefined, signal);
    if (!answer.ok || typeof answer.value !== 'object' || answer.value === null) continue;
    const props = answer.value as Record<string, unknown>;
    const settings = (props['default_generation_settings'] ?? {}) as Record<string, unknown>;
    for (const value of [settings['n_ctx'], props['n_ctx']]) {
      if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
    }
  }
  return null;
}
