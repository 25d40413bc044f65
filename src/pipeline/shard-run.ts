/**
 * One shard of a plan (`servebench run --shard I/N`): the same target → plan → execute stages as
 * a run, then, instead of assembling a result, the shard file (shard/shard-file.ts) that
 * `servebench merge` assembles with the other shards' (docs/sharding.md). The shard journals as
 * a run does; the shard file is one more of its outputs (pipeline/run-output.ts). Its clock starts at the common start instant: the start gate (a Redis rendezvous,
 * `--start-at`, or none) is passed once set-up is done, just before the clock starts.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { RunConfig } from '../config/run-config.js';
import { countRecords } from '../record/records.js';
import { checkShardable, shardPart, type ShardSpec } from '../plan/shard.js';
import { connectionLimit } from '../plan/make-plan.js';
import { serializePlan, type RunPlan } from '../plan/run-plan.js';
import { InterruptedError, UsageError } from '../util/errors.js';
import { ShardFileWriter, type ClockAlignment, type ShardHeader } from '../shard/shard-file.js';
import { checkPlanFitsTarget } from './plan-target.js';
import {
  executeWithOutputs,
  planWith,
  withSession,
  type BenchmarkOptions,
  type BenchmarkTarget,
  type Session,
} from './benchmark.js';
import type { JournalStatus } from '../record/journal.js';
import type { RequestResult } from '../record/types.js';
import type { RunHeader } from '../assemble/assemble.js';
import type { RunEnding, RunOutput, RunStart } from './run-output.js';
import { waitUntilWallMs } from '../shard/wait-until.js';
import type { StartGate } from '../shard/rendezvous.js';

/** How long before the common instant the start-up work (the client's self-check, priorities) begins, ms. */
const START_UP_MS = 50;

/** How the shard's clock meets the others' (shard/rendezvous.ts: a Redis rendezvous or a local start), and which it was. */
export type ShardStartGate = StartGate & { mode: ShardHeader['start']['mode'] };

export interface ShardRunSettings {
  spec: ShardSpec;
  /** The shard file to write (checked by the caller). */
  output: string;
  /** Opens the start gate once the plan is known (its hash goes to the rendezvous). */
  openGate: (planHash: string, signal: AbortSignal | undefined) => Promise<ShardStartGate>;
  /** A shard whose clock starts later than this after the common instant is refused, ms. */
  lateToleranceMs: number;
}

export interface ShardOutcome {
  shardFile: string;
  records: number;
  /** Measured requests of the shard that failed (warm-up left out). */
  failed: number;
  interrupted: boolean;
  plan: RunPlan;
  planHash: string;
  startSkewMs: number | null;
  clock: ClockAlignment;
  journalPath: string | null;
  journal: JournalStatus | null;
}

/**
 * What the sizing block records of how long deciding the plan took (ms): facts of that planning,
 * not of what is sent, so two plannings of the same flags differ in them and nowhere else.
 */
const PLANNING_TIMES = ['count_ms', 'sizing_ms'] as const;

/**
 * The plan's hash: sha256 of its file text without {@link PLANNING_TIMES}, so it covers what is
 * sent, not how long deciding it took. The same on every machine that reads the same plan, and on
 * every shard that plans the same flags against the same server (docs/sharding.md).
 */
export function planHash(plan: RunPlan): string {
  const sizing = plan.identity.sizing;
  const hashed =
    typeof sizing === 'object' && sizing !== null && !Array.isArray(sizing)
      ? {
          ...plan,
          identity: {
            ...plan.identity,
            sizing: Object.fromEntries(
              Object.entries(sizing).filter(([key]) => !(PLANNING_TIMES as readonly string[]).includes(key)),
            ),
          },
        }
      : plan;
  return `sha256:${createHash('sha256').update(serializePlan(hashed)).digest('hex')}`;
}

/** Runs shard `settings.spec` of the plan `config` makes (or of a saved `plan`) against `target`. */
export async function runShardBenchmark(
  source: { config: RunConfig } | { plan: RunPlan },
  target: BenchmarkTarget,
  options: BenchmarkOptions,
  settings: ShardRunSettings,
): Promise<ShardOutcome> {
  const connections = 'plan' in source ? source.plan.client.connections : null;
  const idle = 'plan' in source ? source.plan.client.idle_timeout_s : source.config.client.timeoutS;
  const limit = connections ?? connectionLimit((source as { config: RunConfig }).config);
  return withSession(limit, idle, target, options, async (session) => {
    let plan: RunPlan;
    if ('plan' in source) {
      plan = source.plan;
      checkShardable(plan, settings.spec);
      await checkPlanFitsTarget(plan, target.baseUrl, session.dispatcher, session.headers, session.setup);
    } else {
      plan = (await planWith(source.config, target, session, options)).plan;
      checkShardable(plan, settings.spec);
    }
    if (session.setup.aborted) throw new InterruptedError();
    return executeShard(plan, target, session, options, settings);
  });
}

async function executeShard(
  plan: RunPlan,
  target: BenchmarkTarget,
  session: Session,
  options: BenchmarkOptions,
  settings: ShardRunSettings,
): Promise<ShardOutcome> {
  const hash = planHash(plan);
  let gate: ShardStartGate | null = null;
  let lateMs: number | null = null;
  // Last among the outputs: the journal's end line is written before the shard file is renamed into place.
  const shardFile = new ShardFileOutput(plan, hash, settings, () => {
    if (gate === null) throw new Error('the start gate was not opened');
    return { gate, lateMs };
  });
  try {
    const { execution, end } = await executeWithOutputs(
      plan,
      null,
      target,
      session,
      { ...options, outputs: [...(options.outputs ?? []), shardFile] },
      {
        shard: settings.spec,
        startGate: {
          ready: async (signal) => {
            gate = await settings.openGate(hash, signal);
            // Close to the instant, interruptibly: the last stretch is waited for after the start-up work.
            if (gate.startReferenceMs !== null)
              await waitUntilWallMs(gate.startReferenceMs - gate.clock.offset_ms - START_UP_MS, signal);
          },
          instant: async () => {
            const opened = gate;
            if (opened === null || opened.startReferenceMs === null) return;
            const woke = await opened.waitForStart();
            lateMs = woke.lateMs;
            if (woke.lateMs > settings.lateToleranceMs)
              throw new UsageError(
                `shard ${settings.spec.index} of ${settings.spec.count} was ready ${woke.lateMs.toFixed(0)} ms after the common start (more than ${settings.lateToleranceMs} ms): refused, nothing was sent (start the shards later, or give the slow one more time)`,
              );
          },
        },
      },
    );
    const opened = gate as ShardStartGate | null;
    return {
      shardFile: settings.output,
      records: execution.results.length,
      failed: countRecords(execution.results, (r) => !r.ok && r.warmup !== true),
      interrupted: execution.interrupted,
      plan,
      planHash: hash,
      startSkewMs: shardFile.skewMs,
      clock: opened!.clock,
      journalPath: end.journal?.path ?? null,
      journal: end.journal ?? null,
    };
  } finally {
    await (gate as ShardStartGate | null)?.close();
  }
}

/**
 * The shard file (shard/shard-file.ts) as a run output: opened when the clock starts, with where
 * the clock met the others' (the start gate), each record appended, renamed into place at the
 * end; a run that fails leaves no shard file.
 */
class ShardFileOutput implements RunOutput {
  private writer: ShardFileWriter | null = null;
  /** How long after the common instant this shard's clock started, ms (null without one). */
  skewMs: number | null = null;
  // Worked out before the clock starts: `start` runs on it.
  private readonly part: ReturnType<typeof shardPart>;
  private readonly host = hostname();

  constructor(
    private readonly plan: RunPlan,
    private readonly hash: string,
    private readonly settings: ShardRunSettings,
    private readonly opened: () => { gate: ShardStartGate; lateMs: number | null },
  ) {
    this.part = shardPart(plan, settings.spec);
  }

  start(header: RunHeader, run: RunStart): void {
    const { gate, lateMs } = this.opened();
    const { plan, settings, part } = this;
    const reference = run.wallStartMs + gate.clock.offset_ms;
    this.skewMs = gate.startReferenceMs === null ? null : reference - gate.startReferenceMs;
    this.writer = new ShardFileWriter(settings.output, {
      plan: {
        hash: this.hash,
        prompt_set_id: plan.identity.prompt_set_id,
        requests: plan.requests.count,
        warmup: plan.warmup,
      },
      shard: {
        index: settings.spec.index,
        count: settings.spec.count,
        host: this.host,
        pid: process.pid,
        part_requests: part.indexes.length,
        slots: part.slots === null ? null : part.slots.length,
        rule:
          plan.load.kind === 'open'
            ? { kind: 'arrivals-mod-n' }
            : { kind: 'closed-slots', concurrency: plan.load.concurrency },
      },
      clock: gate.clock,
      start: {
        mode: gate.mode,
        planned_reference_ms: gate.startReferenceMs,
        run_start_local_ms: run.wallStartMs,
        run_start_reference_ms: reference,
        late_ms: lateMs,
        join: gate.join,
      },
      run: header,
    });
  }

  record(result: RequestResult): void {
    this.writer?.append(result);
  }

  async finish(ending: RunEnding | null): Promise<void> {
    const writer = this.writer;
    if (ending === null) return writer?.abandon();
    if (writer === null) throw new Error('the shard file was not opened');
    const { end } = ending;
    writer.finish({
      wall_s: end.wallSeconds,
      finished_at: end.finishedAt,
      interrupted: end.interrupted,
      client: end.client ?? null,
      workers: end.workers ?? null,
      prompt_set_id: end.promptSetId as string,
    });
  }
}
