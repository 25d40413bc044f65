/**
 * `servebench run --shard I/N --output SHARD_FILE`: execute shard I of N of the plan and write
 * its shard file for `servebench merge` (docs/sharding.md). With `--rendezvous` the shards meet
 * in Redis and start together (Redis is reached first: unreachable, nothing is sent); with
 * `--start-at` they start at a given instant; with neither, at once. Exit codes as `run`: 0 every
 * request of the shard completed, 1 some failed, 2 bad usage (a refused start included), 130
 * interrupted (the shard file is written, marked interrupted).
 */
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { EXIT } from '../../util/exit-codes.js';
import type { CliIO } from '../io.js';
import type { RunConfig } from '../../config/run-config.js';
import type { ShardFlags } from '../shard-flags.js';
import { checkRunFiles } from '../../config/run-files.js';
import { parseShardSpec, type ShardSpec } from '../../plan/shard.js';
import type { RunPlan } from '../../plan/run-plan.js';
import { runShardBenchmark, type ShardStartGate } from '../../pipeline/shard-run.js';
import { JournalOutput } from '../../pipeline/journal-output.js';
import { connectRendezvous, localStartGate, type RendezvousConnection } from '../../shard/rendezvous.js';
import { parseRendezvousUrl } from '../../shard/rendezvous-url.js';
import { parseStartAt, startAtIsPast, startAtPastError } from '../../shard/start-at.js';
import { localWallMs } from '../../shard/wait-until.js';
import { withRunFrame } from '../run-frame.js';
import { shardConsole } from '../run-console.js';
import { LOCAL_SHARD_ENV, startFromParent } from '../local-shard-ipc.js';
import { finishLiveMetrics, startLiveMetrics, type LiveMetricsFlags } from '../live-metrics.js';

/** How late after the common start a shard's clock may start before it is refused, ms. */
const LATE_START_TOLERANCE_MS = 1000;

/** Runs one shard. `savedPlan` is the `--plan` file's plan, or null to plan from `config`. */
export async function runShardCommand(
  flags: ShardFlags,
  config: RunConfig,
  savedPlan: RunPlan | null,
  planFile: string | null,
  contextBuckets: string | null,
  quiet: boolean,
  io: CliIO,
  liveFlags: LiveMetricsFlags | null = null,
): Promise<number> {
  // Every input is read and every flag checked before anything is sent.
  const spec: ShardSpec = parseShardSpec(flags.shard, io.env);
  const address = flags.rendezvous === null ? null : parseRendezvousUrl(flags.rendezvous);
  const startAtMs = flags.startAt === null ? null : parseStartAt(flags.startAt);
  if (startAtMs !== null && startAtIsPast(startAtMs, localWallMs(), LATE_START_TOLERANCE_MS))
    throw startAtPastError(startAtMs, localWallMs());
  const output = resolve(io.cwd, config.output.result as string);
  const files = checkRunFiles(
    config,
    io.cwd,
    null,
    contextBuckets,
    planFile === null ? [] : [{ flag: '--plan', path: planFile }],
  );
  const label = `shard ${spec.index}/${spec.count}`;
  const say = (text: string): void => io.stdout(`${label}: ${text}\n`);
  return withRunFrame(config, io, 'run', async (frame) => {
    // Each shard serves its own figures on its own port, labelled with its shard (docs/monitoring.md).
    const live =
      liveFlags === null
        ? null
        : await startLiveMetrics(liveFlags, say, { servebench_shard: `${spec.index}/${spec.count}` });
    if (live !== null) frame.defer(() => live.close());
    // Redis first: unreachable, the shard stops here with nothing sent.
    const connection: RendezvousConnection | null =
      address === null
        ? null
        : await connectRendezvous(address, {
            timeoutS: Math.min(flags.rendezvousTimeoutS, 10),
            signal: frame.stopSignal,
          });
    if (connection !== null) frame.defer(() => connection.close());
    const { target: own, sim } = await frame.startTarget();
    if (sim !== null && !quiet) say(`no --base-url: benchmarking the built-in simulator at ${sim.baseUrl}`);
    const openGate = async (hash: string, signal: AbortSignal | undefined): Promise<ShardStartGate> => {
      if (connection !== null) {
        const gate = await connection.join({
          shardIndex: spec.index,
          shardCount: spec.count,
          planHash: hash,
          host: hostname(),
          timeoutS: flags.rendezvousTimeoutS,
          maxUncertaintyMs: flags.maxClockUncertaintyMs,
          ...(signal !== undefined ? { signal } : {}),
        });
        return { mode: 'rendezvous', ...gate };
      }
      if (io.env[LOCAL_SHARD_ENV] === '1' && process.send !== undefined) {
        return { mode: 'start-at', ...localStartGate(await startFromParent(signal)) };
      }
      return { mode: startAtMs === null ? 'immediate' : 'start-at', ...localStartGate(startAtMs) };
    };
    // A shard process started by `run --shards N` for the simulator its parent started.
    const target = {
      ...own,
      embeddedSimulator: own.embeddedSimulator || io.env['SERVEBENCH_SHARD_OF_EMBEDDED_SIMULATOR'] === '1',
    };
    const warn = (text: string): void => io.stderr(`warning: ${label}: ${text}\n`);
    const outcome = await runShardBenchmark(
      savedPlan !== null ? { plan: savedPlan } : { config },
      target,
      {
        onEvent: (event) => {
          if (event.kind === 'warning') warn(event.text);
          else if (!quiet) say(event.text);
        },
        // The shard file is the shard's own output, added by the pipeline (pipeline/shard-run.ts).
        outputs: [
          ...(files.journal !== null ? [new JournalOutput(files.journal, warn)] : []),
          shardConsole(frame, io, label, quiet),
          ...(live !== null ? [live.output(target.baseUrl)] : []),
        ],
        stopSignal: frame.stopSignal,
        cancelSignal: frame.cancelSignal,
      },
      {
        spec,
        output,
        openGate,
        lateToleranceMs: LATE_START_TOLERANCE_MS,
      },
    );
    frame.finishing();
    const clock = outcome.clock;
    const skew =
      outcome.startSkewMs === null ? '' : `, started ${outcome.startSkewMs.toFixed(2)} ms after the common start`;
    const offset =
      clock.uncertainty_ms === null
        ? 'its own clock'
        : `offset ${clock.offset_ms.toFixed(2)} ± ${clock.uncertainty_ms.toFixed(2)} ms to ${clock.source}`;
    say(
      `${outcome.records} requests measured${skew} (${offset}); shard file written to ${outcome.shardFile}${outcome.journalPath !== null ? ` (journal ${outcome.journalPath})` : ''}`,
    );
    if (live !== null && liveFlags !== null) await finishLiveMetrics(live, liveFlags, frame.stopSignal, say);
    if (outcome.interrupted) return EXIT.interrupted;
    return outcome.failed > 0 ? EXIT.failed : EXIT.ok;
  });
}
