/**
 * What `run` and `run --shard` print while a run lasts, as one of its outputs
 * (pipeline/run-output.ts): the start line, the progress line (report/progress.ts) and one line
 * per failed request. The start tells the frame the run proper has begun (cli/run-frame.ts).
 */
import type { RunConfig } from '../config/run-config.js';
import type { RunPlan } from '../plan/run-plan.js';
import type { RunOutput, RunStart } from '../pipeline/run-output.js';
import { elapsedMs } from '../execute/clock.js';
import { Progress } from '../report/progress.js';
import type { CliIO } from './io.js';
import type { RunFrame } from './run-frame.js';

/** How `run` prints: `say` carries messages (stderr with --json), the progress line goes to stdout. */
export interface RunConsoleSettings {
  io: CliIO;
  frame: RunFrame;
  say: (text: string) => void;
  /** No progress line (--quiet, or --json: stdout carries only the result). */
  progress: boolean;
  /** The configuration the start line describes, or the saved plan's (`run --plan`). */
  source: { config: RunConfig } | { plan: RunPlan };
}

/** `run`'s console: the start line, the progress line, each failed request's error. */
export function runConsole(settings: RunConsoleSettings): RunOutput {
  const { io, frame, say } = settings;
  let progress: Progress | null = null;
  return {
    start: (_header, run) => {
      frame.running();
      say(
        'plan' in settings.source
          ? plannedStartLine(run, settings.source.plan)
          : startLine(run, settings.source.config),
      );
      if (settings.progress) {
        progress = new Progress({
          write: io.stdout,
          isTTY: io.isTTY,
          total: run.requests,
          durationS: run.plan.load.duration_s,
          nowMs: () => elapsedMs(run.runStartNs),
        });
        progress.start();
      }
    },
    sent: () => progress?.onSent(),
    record: (result) => {
      if (!result.ok && result.error !== null)
        io.stderr(
          `${io.isTTY ? '\r\u001b[2K' : ''}  req ${result.requestIndex} error: ${result.error.type}: ${result.error.message.slice(0, 300)}\n`,
        );
      progress?.onResult(result);
    },
    finish: async (ending) => {
      if (ending !== null) progress?.finish();
    },
  };
}

/** A shard's console (`run --shard I/N`): its start and each failed request, every line labelled with the shard. */
export function shardConsole(frame: RunFrame, io: CliIO, label: string, quiet: boolean): RunOutput {
  return {
    start: (_header, run) => {
      frame.running();
      if (!quiet) io.stdout(`${label}: started: ${run.requests} requests of the plan's ${run.plan.requests.count}\n`);
    },
    record: (result) => {
      if (!result.ok && result.error !== null)
        io.stderr(`  ${label} req ${result.requestIndex} error: ${result.error.type}\n`);
    },
    finish: async () => undefined,
  };
}

/** The start line's facts: the part of the plan this process runs. */
function startFacts(run: RunStart): {
  model: string;
  requests: number;
  window: number | null;
  cap: number | null;
  durationS: number | null;
} {
  const { identity, load } = run.plan;
  return {
    model: identity.model,
    requests: run.requests,
    window: identity.window_tokens,
    cap: identity.prompt_cap_tokens,
    durationS: load.duration_s,
  };
}

/** The start line of a saved plan: the same facts as {@link startLine}, read from the plan. */
function plannedStartLine(run: RunStart, plan: RunPlan): string {
  const event = startFacts(run);
  const window = event.window === null ? 'unknown' : `${event.window}(ctx<=${event.cap ?? '?'})`;
  const thinking = plan.body.thinking;
  const mode = thinking.mode !== 'default' ? ` thinking=${thinking.mode}` : '';
  const effort = thinking.reasoningEffort !== null ? ` reasoning_effort=${thinking.reasoningEffort}` : '';
  const context =
    plan.prompts.kind === 'dataset'
      ? 'dataset'
      : plan.meta.context_tokens !== null
        ? `ctx=${plan.meta.context_tokens}`
        : `ctx=sampled(seed ${plan.meta.context_seed})`;
  const summary = plan.load_summary;
  const cap = (n: number | null): string => (n ? ` max_concurrency=${n}` : '');
  const load =
    plan.load.kind === 'closed'
      ? `concurrency=${plan.load.concurrency} ${plan.meta.serve_flags.shared_prefix_burst ? 'BURST(shared-prefix)' : 'closed-loop'}`
      : summary['mode'] === 'open'
        ? `rate=${String(summary['rate'])}/s ${String(summary['arrival'])}${cap(plan.load.max_concurrency)}`
        : `trace${cap(plan.load.max_concurrency)}`;
  const n =
    plan.requests.time_bounded && event.durationS !== null ? `duration=${event.durationS}s` : `n=${event.requests}`;
  const workers = plan.client.workers > 1 ? ` workers=${plan.client.workers}` : '';
  return `BENCH plan model=${event.model} ${n} ${load} ${context} max_tokens=${plan.meta.max_tokens} max_model_len=${window}${mode}${effort}${workers}`;
}

function startLine(run: RunStart, config: RunConfig): string {
  const event = startFacts(run);
  const window = event.window === null ? 'unknown' : `${event.window}(ctx<=${event.cap ?? '?'})`;
  const thinking = config.workload.thinking.mode !== 'default' ? ` thinking=${config.workload.thinking.mode}` : '';
  const effort =
    config.workload.thinking.reasoningEffort !== null
      ? ` reasoning_effort=${config.workload.thinking.reasoningEffort}`
      : '';
  const context =
    config.workload.dataset !== null
      ? 'dataset'
      : config.workload.ctxTokens > 0
        ? `ctx=${config.workload.ctxTokens}`
        : `ctx=sampled(seed ${config.workload.seed})`;
  const load =
    config.load.kind === 'closed'
      ? `concurrency=${config.load.concurrency} ${config.load.burst > 0 ? 'BURST(shared-prefix)' : 'closed-loop'}`
      : config.load.kind === 'open'
        ? `rate=${config.load.rate}/s ${config.load.arrival}${config.load.maxConcurrency ? ` max_concurrency=${config.load.maxConcurrency}` : ''}`
        : `trace${config.load.maxConcurrency ? ` max_concurrency=${config.load.maxConcurrency}` : ''}`;
  const n =
    config.load.kind !== 'trace' && config.load.durationS !== null && !config.load.requestsGiven
      ? `duration=${config.load.durationS}s`
      : `n=${event.requests}`;
  const workers = config.client.workers > 1 ? ` workers=${config.client.workers}` : '';
  return `BENCH model=${event.model} ${n} ${load} ${context} max_tokens=${config.workload.maxTokens} max_model_len=${window}${thinking}${effort}${workers}`;
}
