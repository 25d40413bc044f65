/**
 * Workload identity: the fields that must be equal before two runs' figures may be compared,
 * and the provenance fields that are shown but never block (they are what a comparison is for).
 *
 * The reference evidence tool (docs/protocol.md#comparability-rules) fails closed on a similar list; servebench keeps
 * its intent and fixes what docs/protocol.md#why-reference-results-never-compare found wrong with it:
 * - A recorded null is a value, not an invalid artifact: two sampled plans (`context_tokens`
 *   null) or two runs without a reasoning effort are equal. Only a field the writer never
 *   recorded is *unknown*, and unknown blocks, with the reason (reference files lack
 *   `prompt_set_id` and `cache_policy`).
 * - `reasoning_effort`, `context_seed` (of sampled plans), `context_distribution`, output
 *   controls and the tokenizer mode are compared: each changes what the server is asked to do.
 * - `model` blocks: servebench compares deployments (recipes) of one model; comparing models
 *   is still possible, deliberately, with `--allow-mismatch model`.
 * - `gpu` and `max_context_tokens` do not block: they describe the deployment, and a window's
 *   effect on the workload (clamped prompts) already shows in `context_distribution` and
 *   `prompt_set_id`.
 */

import path from 'node:path';
import { asDoc, get, protocolLabel, str, type Doc, type RunView } from './run-view.js';
import { finiteOrNull } from '../util/numbers.js';

/** What one run says about one identity field. */
export type FieldValue = { known: true; value: unknown } | { known: false; why: string };

/** One identity field and why it is one. */
export interface IdentityFieldSpec {
  name: string;
  reason: string;
  read: (view: RunView) => FieldValue;
  /** When the field means nothing for this pair (e.g. the seed of a fixed plan); another field already differs then. */
  applies?: (a: RunView, b: RunView) => boolean;
}

/** The outcome for one field across a baseline (a) and a candidate (b). */
export interface IdentityCheck {
  field: string;
  status: 'same' | 'differs' | 'unknown';
  a: FieldValue;
  b: FieldValue;
}

const known = (value: unknown): FieldValue => ({ known: true, value });
const unknown = (why: string): FieldValue => ({ known: false, why });
/** Why reference harness files cannot prove workload identity. */
export const REFERENCE_GAP =
  'the reference harness never records it (docs/protocol.md#why-reference-results-never-compare)';

/** Why files before capacity-v2 cannot tell their context plan. */
const PRE_V2_GAP = 'files before capacity-v2 do not record it';

/** A top-level key: absent means the writer did not record it. */
const topLevel =
  (key: string, why = REFERENCE_GAP) =>
  (view: RunView): FieldValue =>
    key in view.doc ? known(view.doc[key]) : unknown(why);

/**
 * A servebench setting; reference files get the reference harness's fixed behaviour (it had no
 * such flag), which is a known value, not a gap.
 */
const setting =
  (read: (sb: Doc) => unknown, reference: unknown) =>
  (view: RunView): FieldValue =>
    view.servebench === null ? known(reference) : known(read(view.servebench));

const loadOf = (view: RunView) => asDoc(get(view.servebench, 'load'));
const isSampled = (view: RunView): boolean => view.doc['context_tokens'] === null;
const isTimeBound = (view: RunView): boolean => finiteOrNull(loadOf(view)['duration_s']) !== null;
/** Machine-local paths differ between hosts; their base name identifies the file (the prompts' hash checks its content). */
const baseName = (v: unknown): string | null => (typeof v === 'string' ? path.basename(v) : null);

/** `--tokenizer` as chosen; an hf: path is machine-local, so it is compared by base name. */
function tokenizerMode(view: RunView): FieldValue {
  if (view.servebench === null) return known('chars:3.0'); // the reference built prompts at 3.0 characters per token
  const mode = str(get(view.servebench, 'config', 'tokenizer'));
  return known(mode !== null && mode.startsWith('hf:') ? `hf:${path.basename(mode.slice(3))}` : mode);
}

/**
 * Where each request's clock starts (t0): `write`, when the request is written to its socket
 * (servebench's default), or `hand-over`, just before it is handed to the HTTP stack, so connect
 * and client queueing count in TTFT (the reference harness; servebench with --cold-connections).
 * Recorded as `servebench.clock.t0`; a file without it is read by its producer: a reference
 * harness file, or a servebench file older than the write clock (no `servebench.clock`), is
 * `hand-over`; a servebench file with `servebench.clock` but no `t0` used the write clock unless
 * its connections were not opened ahead (`servebench.connections.prewarmed` false: --cold-connections).
 */
function clockOrigin(view: RunView): FieldValue {
  if (view.servebench === null) return known('hand-over');
  const clock = get(view.servebench, 'clock');
  if (clock === undefined) return known('hand-over');
  const t0 = str(get(clock, 't0'));
  if (t0 !== null) return known(t0);
  const prewarmed = get(view.servebench, 'connections', 'prewarmed');
  return typeof prewarmed === 'boolean'
    ? known(prewarmed ? 'write' : 'hand-over')
    : unknown('this servebench file records neither servebench.clock.t0 nor servebench.connections');
}

/** Every identity field, in the order they are reported. */
const IDENTITY_FIELDS: readonly IdentityFieldSpec[] = [
  { name: 'model', reason: 'servebench compares deployments of one model', read: (v) => known(v.doc['model']) },
  {
    name: 'measurement_protocol',
    reason: 'figures are defined differently across protocols and emitters',
    read: (v) => known(protocolLabel(v)),
  },
  {
    name: 'context_tokens',
    reason: 'fixed context per request (null: sampled plan)',
    read: topLevel('context_tokens'),
  },
  {
    name: 'context_distribution',
    reason: 'the realized context sizes',
    read: topLevel('context_distribution', PRE_V2_GAP),
  },
  {
    name: 'context_seed',
    reason: 'seed of a sampled plan (compared only when both plans are sampled)',
    read: topLevel('context_seed', PRE_V2_GAP),
    applies: (a, b) => isSampled(a) && isSampled(b),
  },
  { name: 'prompt_set_id', reason: 'hash of the exact prompt bytes', read: topLevel('prompt_set_id') },
  {
    name: 'cache_policy',
    reason: 'prefix layout and cache busting: cold and warm runs differ sharply',
    read: topLevel('cache_policy'),
  },
  { name: 'max_tokens', reason: 'completion cap', read: topLevel('max_tokens') },
  {
    name: 'requests',
    reason: 'sample size and the ramp/drain share (not compared for duration-bounded runs)',
    read: (v) => known(v.doc['requests']),
    applies: (a, b) => !isTimeBound(a) && !isTimeBound(b),
  },
  {
    name: 'load_mode',
    reason: 'closed loop, open loop or trace replay',
    read: setting((sb) => str(get(sb, 'load', 'mode')), 'closed'),
  },
  {
    name: 'concurrency',
    reason: "closed-loop concurrency, or the open loop's in-flight cap",
    read: (v) =>
      known(
        str(loadOf(v)['mode']) === 'open' || str(loadOf(v)['mode']) === 'trace'
          ? (loadOf(v)['max_concurrency'] ?? null)
          : v.doc['concurrency'],
      ),
  },
  {
    name: 'rate',
    reason: 'open-loop arrival rate (requests/s)',
    read: setting((sb) => get(sb, 'load', 'rate') ?? null, null),
  },
  {
    name: 'arrival',
    reason: 'arrival process, gamma burstiness or replayed trace',
    read: setting((sb) => {
      const load = asDoc(get(sb, 'load'));
      if (load['mode'] === 'trace') return `trace:${baseName(load['file']) ?? '?'}`;
      if (load['mode'] !== 'open') return null;
      return load['arrival'] === 'gamma' ? `gamma(k=${String(load['burstiness'])})` : (load['arrival'] ?? null);
    }, null),
  },
  {
    name: 'ramp_s',
    reason: 'ramp of the rate or of the concurrency',
    read: setting((sb) => get(sb, 'load', 'ramp_s') ?? 0, 0),
  },
  {
    name: 'duration_s',
    reason: 'time bound of the run',
    read: setting((sb) => get(sb, 'load', 'duration_s') ?? null, null),
  },
  {
    name: 'shared_prefix_burst',
    reason: 'all requests at once with a shared prefix',
    read: (v) => known(get(v.doc, 'serve_flags', 'shared_prefix_burst') ?? null),
  },
  {
    name: 'thinking_mode',
    reason: 'chat_template_kwargs.enable_thinking sent or not',
    read: (v) => known(get(v.doc, 'serve_flags', 'thinking_mode') ?? null),
  },
  {
    name: 'no_thinking',
    reason: 'thinking disabled',
    read: (v) => known(get(v.doc, 'serve_flags', 'no_thinking') ?? null),
  },
  // Pre-v2 writers had no reasoning-effort flag and sent none: absent is a known null.
  {
    name: 'reasoning_effort',
    reason: 'reasoning_effort sent with each request',
    read: (v) => known(get(v.doc, 'serve_flags', 'reasoning_effort') ?? null),
  },
  { name: 'tokenizer', reason: 'how prompts were sized to their planned context (--tokenizer)', read: tokenizerMode },
  {
    name: 'dataset',
    reason: 'prompts from a dataset file (base name)',
    read: setting((sb) => baseName(get(sb, 'config', 'dataset')), null),
  },
  {
    name: 'ignore_eos',
    reason: 'outputs forced to max_tokens',
    read: setting((sb) => get(sb, 'config', 'ignore_eos') ?? false, false),
  },
  {
    // Each API has its own wire format and its own protocol label; the label already differs, this names the cause.
    name: 'endpoint',
    reason: 'the API driven (--endpoint): chat, completions, responses, messages or embeddings',
    read: setting((sb) => get(sb, 'config', 'endpoint') ?? 'chat', 'chat'),
  },
  {
    // A turn of a conversation sends a growing history: its figures are not a single request's.
    name: 'conversations',
    reason:
      'multi-turn conversations (--turns, --conversations file by base name, --turn-tokens, --think-time); null: single requests',
    read: setting((sb) => {
      const turns = get(sb, 'config', 'turns');
      if (turns === undefined || turns === null) return null;
      return {
        file: baseName(get(sb, 'config', 'conversations')),
        turns,
        turn_tokens: get(sb, 'config', 'turn_tokens') ?? null,
        think_time_s: get(sb, 'config', 'think_time_s') ?? null,
      };
    }, null),
  },
  {
    name: 'tools',
    reason: 'function tools offered with each request (--tools, base name): a tool call is the visible output',
    read: setting((sb) => baseName(get(sb, 'config', 'tools')), null),
  },
  {
    // TTFO/TTFT boundaries move when reasoning is split out of content (client/think-tags.ts).
    name: 'think_tags',
    reason: 'reasoning split out of content by <think> tags (--reasoning-parser)',
    read: setting((sb) => {
      const count = get(sb, 'reasoning_parser', 'think_tag_requests');
      return typeof count === 'number' && count > 0;
    }, false),
  },
  {
    name: 'min_tokens',
    reason: 'minimum output length',
    read: setting((sb) => get(sb, 'config', 'min_tokens') ?? 0, 0),
  },
  {
    name: 'warmup',
    reason: 'requests excluded from every figure',
    read: setting((sb) => get(sb, 'config', 'warmup') ?? null, null),
  },
  {
    name: 'clock_origin',
    reason:
      "where each request's clock starts: `write` to the socket, or `hand-over` to the HTTP stack (connect and client queueing in TTFT; the reference harness, --cold-connections); servebench.clock.t0, else derived from the producer",
    read: clockOrigin,
  },
];

/** Names accepted by `--allow-mismatch NAME[,NAME]`. */
export const IDENTITY_FIELD_NAMES: readonly string[] = IDENTITY_FIELDS.map((f) => f.name);

/** Canonical JSON (sorted keys) so `{a,b}` and `{b,a}` compare equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Checks every identity field of a candidate against a baseline. */
export function checkIdentity(a: RunView, b: RunView): IdentityCheck[] {
  return IDENTITY_FIELDS.map((spec) => {
    const va = spec.read(a);
    const vb = spec.read(b);
    const status =
      spec.applies !== undefined && !spec.applies(a, b)
        ? 'same'
        : !va.known || !vb.known
          ? 'unknown'
          : canonical(va.value) === canonical(vb.value)
            ? 'same'
            : 'differs';
    return { field: spec.name, status, a: va, b: vb };
  });
}

/** A field value as one line of text: JSON for objects, `(not recorded: why)` for gaps. */
export function showValue(v: FieldValue): string {
  if (!v.known) return `(not recorded: ${v.why})`;
  return typeof v.value === 'string' ? v.value : canonical(v.value);
}

/** Provenance: shown for every file, never blocking. */
export const PROVENANCE_FIELDS: readonly { name: string; read: (view: RunView) => unknown }[] = [
  { name: 'run_date', read: (v) => v.runDate },
  { name: 'engine', read: (v) => v.doc['engine'] ?? null },
  { name: 'gpu', read: (v) => v.doc['gpu'] ?? null },
  { name: 'tier', read: (v) => v.doc['tier'] ?? null },
  { name: 'source_recipe', read: (v) => v.doc['source_recipe'] ?? null },
  { name: 'max_context_tokens', read: (v) => v.doc['max_context_tokens'] ?? null },
  { name: 'base_url', read: (v) => v.doc['base_url'] ?? null },
  {
    name: 'tool',
    read: (v) =>
      v.servebench === null ? 'reference harness' : `servebench ${str(v.servebench['tool_version']) ?? '?'}`,
  },
  { name: 'host', read: (v) => v.servebench?.['host'] ?? null },
  { name: 'prompt_method', read: (v) => v.servebench?.['prompt_method'] ?? null },
  { name: 'embedded_simulator', read: (v) => v.servebench?.['embedded_simulator'] ?? null },
];

/** What `view` records for the identity field `name` (the cross-tool comparison reads servebench's side through it). */
export function identityValue(name: string, view: RunView): FieldValue {
  const spec = IDENTITY_FIELDS.find((f) => f.name === name);
  if (spec === undefined) throw new Error(`no identity field '${name}'`);
  return spec.read(view);
}
