/**
 * `servebench run`: resolve the configuration, start the built-in simulator when no target is
 * given, run the benchmark (journaling every finished request), write the result atomically and
 * print the summary.
 * Exit codes: 0 all requests completed, 1 some failed or nothing was measured (result still
 * written), 2 bad usage or a plan that cannot measure anything, 130 interrupted (a partial result
 * written; none when the signal came before the first measured request, see interruptHandling).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseFlags } from '../parse.js';
import { RUN_FLAGS } from '../options.js';
import { helpNotHere } from '../args/parse.js';
import { EXIT } from '../../util/exit-codes.js';
import type { CliIO, Command } from '../io.js';
import { resolveRunConfig } from '../../config/run-config.js';
import { checkRunFiles, defaultResultsDir, journalBeside } from '../../config/run-files.js';
import { runBenchmark, runPlannedBenchmark, type BenchmarkEvent } from '../../pipeline/benchmark.js';
import { WITH_PLAN_RUN_FLAGS } from '../command-flags.js';
import { readPlanFile } from '../plan-file.js';
import { nothingMeasured } from '../../plan/plan-check.js';
import { buildDryRunPlan, formatDryRunPlan } from '../../plan/dry-run.js';
import { readRunSimConfig } from '../embedded-sim.js';
import { checkOpenFiles, withRunFrame } from '../run-frame.js';
import { runConsole } from '../run-console.js';
import { JournalOutput } from '../../pipeline/journal-output.js';
import { formatSummary } from '../../report/console.js';
import { serverMetricsLines } from '../../report/server-summary.js';
import { writeResultFile } from '../../result/io.js';
import { serializeResult } from '../../result/pyjson.js';
import { journalGapWarning } from '../../record/journal.js';
import { resultView } from '../../result/run-view.js';
import { UsageError } from '../../util/errors.js';
import { checkWriteTargets } from '../../util/write-targets.js';
import { shardFlags } from '../shard-flags.js';
import { recordsFlags } from '../records-flags.js';
import { writeRecordsOutput } from '../../pipeline/records-output.js';
import { chunkOffsetsByIndex } from '../../result/records-offsets.js';
import { finishLiveMetrics, liveMetricsFlags, startLiveMetrics } from '../live-metrics.js';

export const runCommand: Command = async (argv, io) => {
  const parsed = parseFlags(argv, RUN_FLAGS);
  if (parsed.values['help'] === true) throw helpNotHere('run');
  const planFile = typeof parsed.values['plan'] === 'string' ? resolve(io.cwd, parsed.values['plan']) : null;
  if (planFile !== null) refuseFlagsThePlanFixes(parsed.given);
  const config = resolveRunConfig(parsed.values, io.env, io.cwd, parsed.given);
  // Checked first, before any other file (the run frame reads it again when it starts).
  readRunSimConfig(config);
  // How this command prints: no part of the run's configuration.
  const cli = {
    dryRun: parsed.values['dry-run'] === true,
    json: parsed.values['json'] === true,
    quiet: parsed.values['quiet'] === true,
  };
  const savedPlan = planFile === null ? null : readPlanFile(planFile).plan;
  const contextBucketsFlag =
    typeof parsed.values['context-buckets'] === 'string' ? parsed.values['context-buckets'] : null;
  const liveFlags = liveMetricsFlags(parsed.values, parsed.given);
  const shard = shardFlags(parsed.values, parsed.given);
  const records = recordsFlags(parsed.values, parsed.given, io.cwd);
  if (records !== null && (shard !== null || typeof parsed.values['shards'] === 'number'))
    throw new UsageError(
      '--records does not apply to a sharded run: each shard writes a shard file; give --records to servebench merge',
    );
  if (records !== null && cli.dryRun) throw new UsageError('--records needs a result; it does not apply to --dry-run');
  // The shard runners (and Redis's client with them) load only for a sharded run.
  if (shard !== null)
    return (await import('./run-shard.js')).runShardCommand(
      shard,
      config,
      savedPlan,
      planFile,
      contextBucketsFlag,
      cli.quiet,
      io,
      liveFlags,
    );
  if (typeof parsed.values['shards'] === 'number') {
    if (liveFlags !== null)
      throw new UsageError(
        '--metrics-port does not apply with --shards: N processes cannot share one port (run each shard with --shard I/N and its own --metrics-port; docs/monitoring.md)',
      );
    return (await import('./run-local-shards.js')).runLocalShards(
      parsed.values['shards'],
      config,
      savedPlan,
      planFile,
      { ...cli, report: typeof parsed.values['report'] === 'string' ? resolve(io.cwd, parsed.values['report']) : null },
      io,
    );
  }
  const reportPath = typeof parsed.values['report'] === 'string' ? resolve(io.cwd, parsed.values['report']) : null;
  if (reportPath !== null && cli.dryRun)
    throw new UsageError('--report needs a result; it does not apply to --dry-run');
  if (cli.dryRun && liveFlags !== null)
    throw new UsageError('--metrics-port does not apply to --dry-run: nothing is sent');
  if (cli.dryRun) {
    const plan = await buildDryRunPlan(config);
    io.stdout(cli.json ? `${JSON.stringify(plan, null, 2)}\n` : `${formatDryRunPlan(plan)}\n`);
    return EXIT.ok;
  }
  // Every file this run writes, checked against the others and the inputs before any request.
  const contextBuckets = typeof parsed.values['context-buckets'] === 'string' ? parsed.values['context-buckets'] : null;
  const files = checkRunFiles(
    config,
    io.cwd,
    reportPath,
    contextBuckets,
    planFile === null ? [] : [{ flag: '--plan', path: planFile }],
    records === null ? [] : [{ flag: '--records', path: records.path, mode: 'replace' }],
  );
  // With --json, stdout carries only the result; every message goes to stderr.
  const say = (text: string): void => (cli.json ? io.stderr(`${text}\n`) : io.stdout(`${text}\n`));

  checkOpenFiles(config);
  let outputPath: string | null = config.output.result;
  return withRunFrame(config, io, 'run', async (frame) => {
    // First: a port in use refuses the run before the simulator starts or anything is sent.
    const live = liveFlags === null ? null : await startLiveMetrics(liveFlags, say);
    if (live !== null) frame.defer(() => live.close());
    const { target, sim } = await frame.startTarget();
    if (sim !== null) say(`no --base-url: benchmarking the built-in simulator at ${sim.baseUrl} (model ${sim.model})`);
    const journal = new JournalOutput(
      // Decided once set-up is over, before the clock starts: the default result name is the run id's.
      (runId) => {
        outputPath ??= defaultOutputPath(io, runId, [files.journal, reportPath]);
        return files.journal ?? journalBeside(outputPath);
      },
      (text) => io.stderr(`warning: ${text}\n`),
    );
    const lines = runConsole({
      io,
      frame,
      say,
      progress: !cli.quiet && !cli.json,
      source: savedPlan === null ? { config } : { plan: savedPlan },
    });
    const options = {
      onEvent: (event: BenchmarkEvent): void => {
        if (event.kind === 'warning') io.stderr(`warning: ${event.text}\n`);
        else if (!cli.quiet) say(event.text);
      },
      outputs: [journal, lines, ...(live !== null ? [live.output(target.baseUrl)] : [])],
      // With --plan too: where the server's metrics are is the target's, not the plan's.
      serverMetrics: { choice: config.target.serverMetrics, intervalS: config.target.scrapeIntervalS },
      stopSignal: frame.stopSignal,
      cancelSignal: frame.cancelSignal,
    };
    const outcome =
      savedPlan === null
        ? await runBenchmark(config, target, options)
        : await runPlannedBenchmark(savedPlan, target, options);
    frame.finishing();
    const path = outputPath ?? defaultOutputPath(io, String(outcome.result['run_id']), [files.journal, reportPath]);
    const written =
      records === null
        ? outcome.result
        : await writeRecordsOutput(outcome.result, chunkOffsetsByIndex(outcome.results), records, path);
    await writeResultFile(path, written);
    if (cli.json) io.stdout(serializeResult(written));
    else {
      io.stdout(`${formatSummary(outcome.result)}\n`);
      for (const line of serverMetricsLines(outcome.result.servebench.server_metrics, outcome.warnings))
        io.stdout(`${line}\n`);
    }
    for (const warning of outcome.warnings) io.stderr(`warning: ${warning}\n`);
    const journalGap = outcome.journal === null ? null : journalGapWarning(outcome.journal);
    if (journalGap !== null) io.stderr(`warning: ${journalGap}\n`);
    say(`result written to ${path}${outcome.journalPath ? ` (journal ${outcome.journalPath})` : ''}`);
    if (records !== null) say(`records written to ${records.path}`);
    if (reportPath !== null) {
      // Loaded only for --report: the report's readers (peer formats) are not the run's.
      const { writeHtmlReport } = await import('./report.js');
      // The result as assembled: the report reads back nothing just written.
      await writeHtmlReport(reportPath, { runs: [resultView(path, outcome.result)], sweep: null });
      say(`report written to ${reportPath}`);
    }
    if (live !== null && liveFlags !== null) await finishLiveMetrics(live, liveFlags, frame.stopSignal, say);
    if (outcome.interrupted) return EXIT.interrupted;
    const unmeasured = nothingMeasured(outcome.plan, outcome.results, outcome.interrupted);
    if (unmeasured !== null) {
      io.stderr(`servebench run: ${unmeasured}\n`);
      return EXIT.failed;
    }
    return Number(outcome.result['failed']) > 0 ? EXIT.failed : EXIT.ok;
  });
};

/** `--plan` fixes everything but the target, the key and the run's own files: any other flag typed is refused, all named at once. */
function refuseFlagsThePlanFixes(given: ReadonlySet<string>): void {
  const allowed: readonly string[] = WITH_PLAN_RUN_FLAGS;
  const fixed = [...given].filter((name) => !allowed.includes(name));
  if (fixed.length === 0) return;
  throw new UsageError(
    `--plan fixes the model, the workload, the load and the client bounds: ${fixed.map((f) => `--${f}`).join(', ')} cannot be given with it (make a new plan with servebench plan instead)`,
  );
}

/**
 * `results/<run_id>.json` under the working directory, never overwriting an earlier run (nor its
 * journal, nor `taken`: the other files this run writes).
 */
export function defaultOutputPath(io: CliIO, runId: string, taken: readonly (string | null)[]): string {
  const dir = defaultResultsDir(io.cwd);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new UsageError(
      `the default output directory ${dir}: cannot be created (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  const free = (path: string): boolean => !existsSync(path) && !taken.includes(path);
  let path = join(dir, `${runId}.json`);
  for (let n = 2; !free(path) || !free(journalBeside(path)); n++) path = join(dir, `${runId}-${n}.json`);
  checkWriteTargets([{ flag: 'the default --output', path, mode: 'create' }]);
  return path;
}
