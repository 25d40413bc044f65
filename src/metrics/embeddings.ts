/**
 * `servebench.embeddings`: the throughput of an `--endpoint embeddings` run, whose responses are
 * one body each (client/embeddings-body.ts), so latency is the rows' `e2e_ms` (and TTFT = E2E).
 * Each request sends one input (the planned prompt).
 */
import { filterRecords, type RequestRecords } from '../record/records.js';
import { isCount } from './rows.js';

/** The block (only in embeddings runs). */
export interface EmbeddingsBlock {
  /** Inputs embedded: one per successful measured request. */
  inputs: number;
  /** inputs / wall seconds (the run's monotonic wall time, as throughput_tok_s divides by). */
  inputs_per_s: number;
  /** Σ usage.prompt_tokens over successful requests that reported it. */
  prompt_tokens: number;
  /** Successful requests whose usage carried no prompt_tokens count (then prompt_tokens undercounts). */
  requests_without_usage: number;
  /** prompt_tokens / wall seconds. */
  prompt_tokens_per_s: number;
}

/** The block over `results` (warm-up requests already removed), over `wallSeconds` (> 0, else rates are 0). */
export function embeddingsBlock(results: RequestRecords, wallSeconds: number): EmbeddingsBlock {
  const ok = filterRecords(results, (r) => r.ok);
  let tokens = 0;
  let missing = 0;
  for (const r of ok) {
    const prompt = r.usage?.['prompt_tokens'];
    if (isCount(prompt)) tokens += prompt;
    else missing++;
  }
  const rate = (x: number): number => (wallSeconds > 0 ? x / wallSeconds : 0);
  return {
    inputs: ok.length,
    inputs_per_s: rate(ok.length),
    prompt_tokens: tokens,
    requests_without_usage: missing,
    prompt_tokens_per_s: rate(tokens),
  };
}
