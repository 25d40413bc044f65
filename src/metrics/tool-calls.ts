/**
 * `servebench.tool_calls`: what the run's successful responses did with the tools they were
 * offered (`--tools`). Each figure is defined next to it; rows carry the per-request counts.
 */
import { filterRecords, type RequestRecords } from '../record/records.js';
import { percentile } from './percentile.js';

/** The block (absent from results of runs that offered no tools and got no tool call). */
export interface ToolCallsBlock {
  /** Successful measured requests. */
  requests: number;
  /** Of those, responses that began at least one tool call. */
  requests_with_calls: number;
  /** Σ calls begun over successful requests. */
  calls: number;
  /** calls / requests (0 when requests is 0): calls per turn. */
  calls_per_request_avg: number;
  /** Σ UTF-8 bytes of argument text over successful requests. */
  argument_bytes: number;
  /** argument_bytes / calls, or null without a call. */
  argument_bytes_per_call_avg: number | null;
  /** Nearest-rank p50 / p95 (docs/protocol.md#percentiles) of first tool-call delta − request start, ms, over responses with one. */
  time_to_first_tool_call_p50_ms: number | null;
  time_to_first_tool_call_p95_ms: number | null;
}

/** The block over `results` (warm-up requests already removed by the caller). */
export function toolCallsBlock(results: RequestRecords): ToolCallsBlock {
  const ok = filterRecords(results, (r) => r.ok);
  let calls = 0;
  let bytes = 0;
  let withCalls = 0;
  const firsts: number[] = [];
  for (const r of ok) {
    const facts = r.toolCalls;
    if (facts === undefined) continue;
    calls += facts.calls;
    bytes += facts.argumentBytes;
    if (facts.calls > 0) withCalls++;
    if (facts.firstS !== null) firsts.push(facts.firstS * 1000.0);
  }
  return {
    requests: ok.length,
    requests_with_calls: withCalls,
    calls,
    calls_per_request_avg: ok.length === 0 ? 0 : calls / ok.length,
    argument_bytes: bytes,
    argument_bytes_per_call_avg: calls === 0 ? null : bytes / calls,
    time_to_first_tool_call_p50_ms: percentile(firsts, 50),
    time_to_first_tool_call_p95_ms: percentile(firsts, 95),
  };
}
