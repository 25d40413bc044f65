/**
 * The identity fields of a cross-tool comparison (cross-run.ts, compare-peer.ts, docs/interop.md):
 * data only, in a leaf module, so `compare`'s flag table names them without loading the readers
 * (docs/architecture.md, "Loading").
 */

/** How far apart two mean token counts may be and still be the same workload, in percent of the larger. */
export const TOKEN_MEAN_TOLERANCE_PCT = 5;

/** The identity fields of a cross-tool comparison, in report order, with why each is one. */
export const CROSS_IDENTITY_FIELDS: readonly { name: string; reason: string }[] = [
  { name: 'model', reason: 'the same model' },
  { name: 'load_mode', reason: 'closed loop (a concurrency) or open loop (an arrival rate)' },
  { name: 'concurrency', reason: "closed-loop concurrency, or the open loop's in-flight cap" },
  { name: 'rate', reason: 'open-loop arrival rate (requests/s); null for a closed loop' },
  {
    name: 'input_tokens_mean',
    reason: `mean prompt tokens per successful request, equal within ${TOKEN_MEAN_TOLERANCE_PCT}% (tools count them differently: the server's usage or the client's tokenizer)`,
  },
  {
    name: 'output_tokens_mean',
    reason: `mean output tokens per successful request, equal within ${TOKEN_MEAN_TOLERANCE_PCT}%`,
  },
  { name: 'prompt_set', reason: 'the exact prompts sent (servebench: prompt_set_id, a hash of their bytes)' },
  { name: 'output_controls', reason: 'the completion cap and whether EOS was ignored (max_tokens, ignore_eos)' },
  {
    name: 'clock_origin',
    reason: "where each request's clock starts: at the write to the socket, or at the hand-over to the HTTP stack",
  },
];

/** Names accepted by `--allow-mismatch` for a cross-tool comparison. */
export const CROSS_IDENTITY_FIELD_NAMES: readonly string[] = CROSS_IDENTITY_FIELDS.map((f) => f.name);
