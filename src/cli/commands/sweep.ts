/**
 * `servebench sweep --concurrency 1,2,4,8 [run flags]` or `--rate 2,4,8 [run flags]`: one full
 * benchmark per load point (each its own result file and journal), then a summary of the points
 * (`sweep.json`): throughput against latency, the knee, and with `--slo` the highest load that
 * meets it. Without `--base-url` each point gets a fresh built-in simulator, so no point inherits
 * another's prefix cache or queue.
 */
import { mkdirSync, rmdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { RUN_FLAGS } from '../options.js';
import { commandSpec } from '../command-flags.js';
import { parseCommandArgs, type ParsedArgs } from '../args/parse.js';
import { inheritedFlags, type FlagSpec } from '../args/spec.js';
import type { FlagValue } from '../../config/flag-value.js';
import { EXIT } from '../../util/exit-codes.js';
import type { Command } from '../io.js';
import { resolveRunConfig, type RunConfig } from '../../config/run-config.js';
import { runBenchmark } from '../../pipeline/benchmark.js';
import { JournalOutput } from '../../pipeline/journal-output.js';
import type { RunOutput } from '../../pipeline/run-output.js';
import { readRunSimConfig } from '../embedded-sim.js';
import { checkOpenFiles, withRunFrame, type RunFrame } from '../run-frame.js';
import { writeFileAtomic, writeResultFile } from '../../result/io.js';
import { sweepReportSources, writeHtmlReport } from './report.js';
import { summarizeSweep, formatSweep, type SweepPointInput } from '../../report/sweep.js';
import { InterruptedError, UsageError } from '../../util/errors.js';
import { utcSeconds, referenceRunId } from '../../result/build.js';
import { freshJournalBeside, runInputs } from '../../config/run-files.js';
import { journalGapWarning } from '../../record/journal.js';
import {
  checkCreatableDirectory,
  checkWriteTargets,
  type ReadInput,
  type WriteTarget,
} from '../../util/write-targets.js';

const SPEC = commandSpec('sweep');
/** The run flags a sweep passes on to every point (run's own entries, not sweep's lists). */
const PASSED_ON: ReadonlySet<FlagSpec> = new Set(inheritedFlags(SPEC));

/**
 * The `run` flags of one point: every run flag the sweep was given (defaults for the others),
 * with the swept flag set to the point's load, as if `run --<swept> <load>` had been typed.
 */
function pointFlags(
  parsed: ParsedArgs,
  swept: 'concurrency' | 'rate',
  load: number,
): { values: Record<string, FlagValue>; given: Set<string> } {
  const values: Record<string, FlagValue> = {};
  const given = new Set<string>([swept]);
  for (const flag of RUN_FLAGS) {
    const own = PASSED_ON.has(flag);
    values[flag.name] = own ? (parsed.values[flag.name] as FlagValue) : flag.default;
    if (own && parsed.given.has(flag.name)) given.add(flag.name);
  }
  values[swept] = load;
  // The sweep writes its --report itself, once, from the summary.
  values['report'] = undefined;
  given.delete('report');
  return { values, given };
}

export const sweepCommand: Command = async (argv, io) => {
  const parsed = parseCommandArgs(argv, SPEC);
  const lists = { concurrency: parsed.values['concurrency'], rate: parsed.values['rate'] };
  if ((lists.concurrency === undefined) === (lists.rate === undefined))
    throw new UsageError('give exactly one of --concurrency LIST or --rate LIST');
  const swept: 'concurrency' | 'rate' = lists.concurrency !== undefined ? 'concurrency' : 'rate';
  const loads = [...(lists[swept] as readonly number[])].sort((a, b) => a - b);
  // Resolve every point's configuration before any request, so a bad flag fails at once.
  const configs = loads.map((load) => {
    const point = pointFlags(parsed, swept, load);
    const config = resolveRunConfig(point.values, io.env, io.cwd, point.given);
    readRunSimConfig(config); // checked now, before any request; read again when the point starts its simulator
    return config;
  });
  const report = parsed.values['report'] as string | undefined;
  if (report !== undefined && report.trim() === '') throw new UsageError('--report: expected a file name');
  const reportPath = report === undefined ? null : resolve(io.cwd, report);
  const outputDir = parsed.values['output-dir'] as string | undefined;
  const dir = resolve(
    io.cwd,
    outputDir ?? join('results', `sweep-${referenceRunId(io.now()).replace(/^benchmark-/, '')}`),
  );
  const files = loads.map((load) => join(dir, `${swept === 'rate' ? 'rate' : 'c'}${load}.json`));
  const contextBuckets = (parsed.values['context-buckets'] as string | undefined) ?? null;
  const journals = checkSweepFiles(dir, files, reportPath, runInputs(configs[0]!, io.cwd, contextBuckets));
  const points: SweepPointInput[] = [];
  let anyFailed = false;
  // One frame for the whole sweep: one key, one signal handler; each point its own simulator.
  // The largest point holds the most connections: checked before the first point starts.
  checkOpenFiles(configs.at(-1)!);
  return withRunFrame(configs[0]!, io, 'sweep', async (frame) => {
    // The point a signal came during (its partial result is among `points` when it had started).
    let interruptedLoad: number | null = null;
    for (const [i, config] of configs.entries()) {
      const load = loads[i]!;
      const file = files[i]!;
      io.stdout(`${utcSeconds(io.now())} point ${i + 1}/${loads.length}: ${swept} ${load}\n`);
      const outcome = await runPoint(config, frame, journals[i]!, points.length > 0);
      if (outcome === null) {
        // Interrupted before this point measured anything: no result for it, and no later point.
        interruptedLoad = load;
        break;
      }
      await writeResultFile(file, outcome.result);
      for (const warning of outcome.warnings) io.stderr(`warning (${swept} ${load}): ${warning}\n`);
      const journalGap = outcome.journal === null ? null : journalGapWarning(outcome.journal);
      if (journalGap !== null) io.stderr(`warning (${swept} ${load}): ${journalGap}\n`);
      anyFailed ||= Number(outcome.result['failed']) > 0;
      points.push({ load, file, result: outcome.result });
      if (outcome.interrupted) {
        io.stderr(`servebench sweep: the ${swept} ${load} point's partial result is written to ${file}\n`);
        interruptedLoad = load;
        break;
      }
      // Between points a signal ends the sweep as in a point's set-up: the next point is not started.
      if (frame.interrupted && i + 1 < configs.length) {
        interruptedLoad = loads[i + 1] ?? load;
        break;
      }
    }
    frame.finishing();
    const summary = summarizeSweep(
      swept,
      configs[0]?.slo?.text ?? null,
      points,
      interruptedLoad === null ? null : { load: interruptedLoad },
    );
    await writeFileAtomic(join(dir, 'sweep.json'), `${JSON.stringify(summary, null, 2)}\n`);
    io.stdout(`${formatSweep(summary)}\nsweep written to ${join(dir, 'sweep.json')}\n`);
    if (reportPath !== null) {
      // The points' results as assembled: the report reads back none of the files just written.
      await writeHtmlReport(reportPath, sweepReportSources(summary, points, io.cwd));
      io.stdout(`report written to ${reportPath}\n`);
    }
    if (interruptedLoad !== null) return EXIT.interrupted;
    return anyFailed ? EXIT.failed : EXIT.ok;
  });
};

/**
 * Checks, before any request, every file the sweep writes (each point's result and journal,
 * sweep.json, --report) against each other and the runs' inputs; creates the output directory.
 * Returns each point's journal path (a fresh name beside the result when an earlier one is there).
 * @throws UsageError naming the flag(s) and the path (an output directory it created is removed).
 */
function checkSweepFiles(
  dir: string,
  files: readonly string[],
  reportPath: string | null,
  inputs: readonly ReadInput[],
): string[] {
  checkCreatableDirectory(`--output-dir ${dir}`, dir);
  let created: string | undefined;
  try {
    created = mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new UsageError(
      `--output-dir ${dir}: cannot be created (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  try {
    const targets: WriteTarget[] = [];
    const journals: string[] = [];
    const taken = reportPath === null ? [] : [reportPath];
    for (const file of files) {
      const journal = freshJournalBeside(file, taken);
      journals.push(journal);
      targets.push(
        { flag: `the point result`, path: file, mode: 'replace' },
        { flag: 'the point journal', path: journal, mode: 'create' },
      );
    }
    targets.push({ flag: 'the sweep summary', path: join(dir, 'sweep.json'), mode: 'replace' });
    if (reportPath !== null) targets.push({ flag: '--report', path: reportPath, mode: 'replace' });
    checkWriteTargets(targets, inputs);
    return journals;
  } catch (error) {
    // Leave no empty directory behind for a sweep that never started (rmdir refuses a non-empty one).
    for (let d = dir; created !== undefined && d.length >= created.length; d = dirname(d)) {
      try {
        rmdirSync(d);
      } catch {
        break;
      }
    }
    throw error;
  }
}

/**
 * Runs one point against a fresh target (the built-in simulator's closed when the point ends).
 * Returns null when a signal ended the point's set-up, nothing measured, and an earlier point
 * was: the sweep then writes what it has (docs/output-files.md, "Nothing measured is lost"). With no
 * earlier point the InterruptedError goes on to the CLI, as run's does: nothing to write.
 */
async function runPoint(
  config: RunConfig,
  frame: RunFrame,
  journal: string,
  anyEarlier: boolean,
): Promise<Awaited<ReturnType<typeof runBenchmark>> | null> {
  frame.settingUp();
  try {
    const { target, close } = await frame.startTarget();
    try {
      return await runBenchmark(config, target, {
        outputs: [new JournalOutput(journal), runningOutput(frame)],
        stopSignal: frame.stopSignal,
        cancelSignal: frame.cancelSignal,
      });
    } finally {
      frame.finishing();
      await close();
    }
  } catch (error) {
    if (error instanceof InterruptedError && anyEarlier) return null;
    throw error;
  }
}

/** A point's only console output: once its clock has started, a signal stops scheduling (cli/run-frame.ts). */
function runningOutput(frame: RunFrame): RunOutput {
  return { start: () => frame.running(), record: () => undefined, finish: async () => undefined };
}
