/**
 * `servebench run --shards N`: one plan as N shard processes on this machine, merged into one
 * result — the way to use a many-core client box past what one event loop (or its worker threads)
 * can stream. It takes the same path as shards on N machines: the plan is written once, each
 * child runs `servebench run --plan P --shard i/N --output shard-i`, and `merge` assembles their
 * shard files. Only the start differs: the children tell this process when they are ready (Node's
 * IPC channel), and it gives them all one start instant a few ms ahead on the shared wall clock.
 * The shard files and the children's journals are kept in a temporary folder, removed once the
 * result is written (kept, and named, when a shard fails).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../../util/exit-codes.js';
import type { CliIO } from '../io.js';
import type { RunConfig } from '../../config/run-config.js';
import { checkRunFiles } from '../../config/run-files.js';
import { planBenchmark } from '../../pipeline/benchmark.js';
import { checkShardable } from '../../plan/shard.js';
import { serializePlan, type RunPlan } from '../../plan/run-plan.js';
import { writeFileAtomic, writeResultFile, parseResultText } from '../../result/io.js';
import { serializeResult } from '../../result/pyjson.js';
import { runView } from '../../result/run-view.js';
import { formatSummary } from '../../report/console.js';
import { mergeShardFiles } from '../../shard/merge.js';
import { RunFailedError } from '../../util/errors.js';
import { withRunFrame, type RunFrame } from '../run-frame.js';
import { defaultOutputPath } from './run.js';
import { LOCAL_SHARD_ENV, type LocalShardMessage } from '../local-shard-ipc.js';

/** How far ahead of "all ready" the common start is put: every child must learn it and be waiting, ms. */
const START_LEAD_MS = 250;

const MAIN = fileURLToPath(new URL('../main.js', import.meta.url));

/** The flags a child is given: the plan, its shard, the target and the key, by the same flags the user gave. */
function childArgs(planFile: string, index: number, count: number, dir: string, target: TargetArgs): string[] {
  return [
    'run',
    '--plan',
    planFile,
    '--shard',
    `${index}/${count}`,
    '--output',
    join(dir, `shard-${index}.ndjson`),
    '--base-url',
    target.baseUrl,
    ...(target.apiKeyEnv !== null ? ['--api-key-env', target.apiKeyEnv] : []),
    ...(target.apiKeyFile !== null ? ['--api-key-file', target.apiKeyFile] : []),
    '--quiet',
  ];
}

interface TargetArgs {
  baseUrl: string;
  apiKeyEnv: string | null;
  apiKeyFile: string | null;
}

/** Runs `count` local shards of the plan and writes the merged result. */
export async function runLocalShards(
  count: number,
  config: RunConfig,
  savedPlan: RunPlan | null,
  planFile: string | null,
  cli: { json: boolean; quiet: boolean; report: string | null },
  io: CliIO,
): Promise<number> {
  checkRunFiles(config, io.cwd, cli.report, null, planFile === null ? [] : [{ flag: '--plan', path: planFile }]);
  const say = (text: string): void => (cli.json ? io.stderr(`${text}\n`) : io.stdout(`${text}\n`));
  return withRunFrame(config, io, 'run', async (frame) => {
    const { target, sim } = await frame.startTarget();
    if (sim !== null) say(`no --base-url: benchmarking the built-in simulator at ${sim.baseUrl} (model ${sim.model})`);
    const dir = mkdtempSync(join(tmpdir(), 'servebench-shards-'));
    let keep = false;
    frame.defer(() => {
      if (!keep) rmSync(dir, { recursive: true, force: true });
    });
    const plan = savedPlan ?? (await planBenchmark(config, target, { stopSignal: frame.stopSignal }));
    checkShardable(plan, { index: 0, count });
    const planPath = join(dir, 'plan.json');
    await writeFileAtomic(planPath, serializePlan(plan));
    say(`running the plan of ${plan.requests.count} requests as ${count} shard processes (files in ${dir})`);
    const args = { baseUrl: target.baseUrl, apiKeyEnv: config.target.apiKeyEnv, apiKeyFile: config.target.apiKeyFile };
    const codes = await startTogether(
      count,
      (i) => childArgs(planPath, i, count, dir, args),
      sim !== null,
      io,
      cli,
      frame,
    );
    const failedShards = codes.flatMap((code, i) => (code === EXIT.ok || code === EXIT.failed ? [] : [i]));
    if (failedShards.length > 0) {
      keep = true;
      throw new RunFailedError(
        `shard${failedShards.length === 1 ? '' : 's'} ${failedShards.join(', ')} of ${count} did not finish (exit ${failedShards.map((i) => codes[i]).join(', ')}); their journals and the other shards' files are in ${dir}`,
        null,
        0,
      );
    }
    const shardFiles = Array.from({ length: count }, (_, i) => join(dir, `shard-${i}.ndjson`));
    const merged = await mergeShardFiles(shardFiles, { allowPartial: false });
    const path = config.output.result ?? defaultOutputPath(io, String(merged.result['run_id']), [cli.report]);
    await writeResultFile(path, merged.result);
    if (cli.json) io.stdout(serializeResult(merged.result));
    else io.stdout(`${formatSummary(merged.result)}\n`);
    for (const warning of merged.warnings) io.stderr(`warning: ${warning}\n`);
    const spread = merged.result.servebench.shards?.alignment.start_spread_ms ?? 0;
    say(`result merged from ${count} shards (start spread ${spread.toFixed(2)} ms) written to ${path}`);
    if (cli.report !== null) {
      const { writeHtmlReport } = await import('./report.js');
      await writeHtmlReport(resolve(io.cwd, cli.report), {
        runs: [runView(path, parseResultText(path, serializeResult(merged.result)).result)],
        sweep: null,
      });
      say(`report written to ${cli.report}`);
    }
    if (merged.result.servebench.interrupted) return EXIT.interrupted;
    return Number(merged.result['failed']) > 0 ? EXIT.failed : EXIT.ok;
  });
}

/**
 * Starts the children; when every one has said it is ready, sends them all the same start
 * instant. A child that exits before it is ready ends the others (they would wait forever).
 * A SIGINT or SIGTERM meanwhile is passed on to every child (each then ends as a run does).
 */
async function startTogether(
  count: number,
  argsFor: (index: number) => string[],
  embeddedSimulator: boolean,
  io: CliIO,
  cli: { json: boolean },
  frame: RunFrame,
): Promise<number[]> {
  const env = {
    ...io.env,
    [LOCAL_SHARD_ENV]: '1',
    ...(embeddedSimulator ? { SERVEBENCH_SHARD_OF_EMBEDDED_SIMULATOR: '1' } : {}),
  };
  const children: ChildProcess[] = [];
  const ready = new Set<number>();
  let started = false;
  // The children run the requests and each applies the run's interrupt rules: this process only
  // passes the signals on (docs/output-files.md, "Nothing measured is lost").
  frame.running((signal) => {
    for (const child of children) if (child.exitCode === null) child.kill(signal);
  });
  try {
    const exits = Array.from({ length: count }, (_, i) => {
      const child = fork(MAIN, argsFor(i), { cwd: io.cwd, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
      children.push(child);
      child.stdout?.on('data', (chunk: Buffer) =>
        cli.json ? io.stderr(chunk.toString()) : io.stdout(chunk.toString()),
      );
      child.stderr?.on('data', (chunk: Buffer) => io.stderr(chunk.toString()));
      child.on('message', (message: LocalShardMessage) => {
        if (message.type !== 'ready') return;
        ready.add(i);
        if (ready.size === count && !started) {
          started = true;
          const atMs = performance.timeOrigin + performance.now() + START_LEAD_MS + 5 * count;
          for (const each of children) each.send({ type: 'start', atMs } satisfies LocalShardMessage);
        }
      });
      return new Promise<number>((done) =>
        child.on('exit', (code, signal) => {
          if (!started)
            for (const other of children) if (other !== child && other.exitCode === null) other.kill('SIGTERM');
          done(code ?? (signal === 'SIGINT' ? EXIT.interrupted : 1));
        }),
      );
    });
    return await Promise.all(exits);
  } finally {
    frame.finishing();
  }
}
