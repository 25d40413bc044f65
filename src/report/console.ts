/**
 * The end-of-run console summary: the figures of the result file, in a table people can read.
 * It prints exactly the values stored in the result (same numbers, only unit-converted), so the
 * console and the file never disagree.
 */

import type { CapacityResult } from '../result/result-schema.js';

function ms(v: number | null): string {
  if (v === null) return '-';
  return v >= 10000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(1)} ms`;
}

function rate(v: number | null): string {
  return v === null ? '-' : v >= 100 ? v.toFixed(0) : v.toFixed(2);
}

/** Formats the summary of the result of a run. */
export function formatSummary(result: CapacityResult): string {
  const metrics = result.metrics;
  const lines: string[] = [];
  lines.push(
    `${result.measurement_protocol}  model=${result.model}  completed ${result.completed}/${result.requests}  failed ${result.failed}`,
  );
  const rows: [string, string, string, string][] = [['metric', 'p50', 'p95', 'definition']];
  const reasoning = metrics.reasoning_chunks > 0;
  if (reasoning)
    rows.push([
      'time to first output',
      ms(metrics.time_to_first_output_p50_ms),
      ms(metrics.time_to_first_output_p95_ms),
      'first reasoning or content delta',
    ]);
  rows.push(['time to first token', ms(metrics.ttft_p50_ms), ms(metrics.ttft_p95_ms), 'first visible content delta']);
  rows.push(['generation', ms(metrics.generation_p50_ms), ms(metrics.generation_p95_ms), 'E2E − time to first output']);
  rows.push(['end to end', ms(metrics.e2e_p50_ms), ms(metrics.e2e_p95_ms), 'request start to end of stream']);
  rows.push([
    'effective prefill tok/s',
    rate(metrics.effective_prefill_tok_s_p50),
    rate(metrics.effective_prefill_tok_s_p95),
    'prompt tokens / time to first output',
  ]);
  rows.push([
    'decode tok/s',
    rate(metrics.decode_tok_s_p50),
    rate(metrics.decode_tok_s_p95),
    '(completion − 1) / generation',
  ]);
  rows.push([
    'inter-token latency',
    ms(metrics.mean_inter_token_latency_ms_p50),
    ms(metrics.mean_inter_token_latency_ms_p95),
    'generation / (completion − 1)',
  ]);
  rows.push([
    'prompt tokens',
    rate(metrics.prompt_tokens_p50),
    rate(metrics.prompt_tokens_p95),
    'usage.prompt_tokens as the server counted',
  ]);
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const row of rows)
    lines.push(
      `  ${row[0].padEnd(widths[0]!)}  ${row[1].padStart(widths[1]!)}  ${row[2].padStart(widths[2]!)}  ${row[3]}`,
    );
  const throughput = metrics.throughput_tok_s;
  lines.push(
    `  throughput: ${throughput === null ? 'unavailable (no usage counts)' : `${throughput.toFixed(2)} output tok/s`} over ${ms(result.wall_clock_ms)} wall (includes ramp-up and drain)`,
  );
  const hit = metrics.prefix_cache_hit_avg;
  lines.push(
    `  prefix cache hit: ${hit === null ? 'not reported by the server (no cached_tokens)' : `${(hit * 100).toFixed(1)}%`}`,
  );
  const parser = result.servebench.reasoning_parser;
  if (parser !== undefined && parser.think_tag_requests > 0)
    lines.push(
      `  reasoning: <think>…</think> split off the content in ${parser.think_tag_requests} of ${result.requests} requests (--reasoning-parser ${parser.setting})`,
    );
  const tools = result.servebench.tool_calls;
  if (tools !== undefined) {
    const first = tools.time_to_first_tool_call_p50_ms;
    lines.push(
      `  tool calls: ${tools.calls} in ${tools.requests_with_calls} of ${tools.requests} responses (${tools.calls_per_request_avg.toFixed(2)} per response), ${tools.argument_bytes} argument bytes${first === null ? '' : `, first call p50 ${ms(first)}`}`,
    );
  }
  const embeddings = result.servebench.embeddings;
  if (embeddings !== undefined)
    lines.push(
      `  embeddings: ${embeddings.inputs_per_s.toFixed(2)} inputs/s, ${embeddings.prompt_tokens_per_s.toFixed(1)} prompt tok/s (latency is e2e: the body arrives whole)`,
    );
  const conversations = result.servebench.conversations;
  if (conversations !== undefined) lines.push(...conversationLines(conversations));
  return lines.join('\n');
}

/** `servebench.conversations` in two lines: the counts, then TTFT and cache hits by turn (docs/conversations.md); a third by step for agent sessions (docs/agent-traces.md). */
function conversationLines(c: NonNullable<CapacityResult['servebench']['conversations']>): string[] {
  const byTurn = (value: (t: (typeof c.by_turn)[number]) => string): string => c.by_turn.map(value).join(' | ');
  return [
    `  conversations: ${c.completed}/${c.conversations} completed, ${c.failed_mid_conversation} failed mid-conversation; ${c.turns_sent} turns sent, ${c.turns_not_sent} not sent`,
    `  by turn (0, 1, …): TTFT p50 ${byTurn((t) => (t.ttft_p50_ms === null ? '–' : ms(t.ttft_p50_ms)))}; prefix cache hit ${byTurn((t) => (t.mean_prefix_cache_hit === null ? '–' : `${(t.mean_prefix_cache_hit * 100).toFixed(0)}%`))}`,
    ...(c.by_step !== undefined
      ? [
          `  by step: ${c.by_step.map((s) => `${s.step_kind} ${s.turns_sent} sent${s.tool_results_sent > 0 ? ` (${s.tool_results_sent} results)` : ''}, TTFT p50 ${s.ttft_p50_ms === null ? '–' : ms(s.ttft_p50_ms)}`).join(' | ')}`,
        ]
      : []),
  ];
}
