/**
 * `servebench sweep --concurrency 1,2,4,8 [run flags]` or `--rate 2,4,8 [run flags]`: one full
 * benchmark per load point (each its own result file and journal), then a summary of the points
 * (`sweep.json`): throughput against latency, the knee, and with `--slo` the highest load that
 * meets it. Without `--base-url` each point gets a fresh built-in simulator, so no point inherits
 * another's prefix cache or queue.
 */
import { mkdirSync, rmdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseFlags } from '../parse.js';
import { RUN_FLAGS, formatFlagHelp } from '../options.js';
import { SWEEP_EXCLUDED_RUN_FLAGS, SWEEP_FLAGS, commandSpec } from '../command-flags.js';
import { EXIT } from '../exit-codes.js';
import type { CliIO, Command } from '../io.js';
import { resolveRunConfig, type RunConfig } from '../../config/run-config.js';
import { resolveApiKey } from '../../config/api-key.js';
import { runBenchmark } from '../../pipeline/benchmark.js';
import { readRunSimConfig, startEmbeddedSimulator } from '../embedded-sim.js';
import { writeFileAtomic, writeResultFile } from '../../result/io.js';
import { loadReportSources, writeHtmlReport } from './report.js';
import { summarizeSweep, formatSweep, type SweepPointInput } from '../../report/sweep.js';
import { UsageError } from '../../util/errors.js';
import { utcSeconds, referenceRunId } from '../../result/build.js';
import { freshJournalBeside, runInputs } from '../../config/run-files.js';
import { journalGapWarning } from '../../record/journal.js';
import { checkCreatableDirectory, checkWriteTargets, type ReadInput, type WriteTarget } from '../../util/write-targets.js';

const EXCLUDED: readonly string[] = SWEEP_EXCLUDED_RUN_FLAGS;

const HELP = `usage: ${commandSpec('sweep').usage}

Runs one benchmark per load point (LIST: comma-separated, e.g. 1,2,4,8) and writes each result
plus a sweep summary (sweep.json) to --output-dir. Exit status: 0 every request of every point
completed, 1 some failed (every file still written), 2 bad usage, before any request.

${formatFlagHelp(SWEEP_FLAGS)}

Every other flag is a 'servebench run' flag and applies to every point:

${formatFlagHelp(RUN_FLAGS.filter((f) => !EXCLUDED.includes(f.name) && f.name !== 'help'))}
`;

/** Pulls `--name LIST` / `--name=LIST` out of argv. */
function takeList(argv: string[], name: string): { values: number[] | null; rest: string[] } {
  const rest: string[] = [];
  let text: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === `--${name}`) {
      text = argv[++i] ?? '';
    } else if (arg.startsWith(`--${name}=`)) {
      text = arg.slice(name.length + 3);
    } else rest.push(arg);
  }
  if (text === null) return { values: null, rest };
  const values = text.split(',').map((part) => Number(part.trim()));
  if (values.length === 0 || values.some((v) => !Number.isFinite(v) || v <= 0)) throw new UsageError(`--${name}: expected a comma-separated list of positive numbers, got '${text}'`);
  if (new Set(values).size !== values.length) throw new UsageError(`--${name}: the list repeats a value`);
  return { values: [...values].sort((a, b) => a - b), rest };
}

export const sweepCommand: Command = async (argv, io) => {
  if (argv.includes('--help')) {
    io.stdout(HELP);
    return EXIT.ok;
  }
  const concurrency = takeList(argv, 'concurrency');
  const rate = takeList(concurrency.rest, 'rate');
  const report = takeOne(rate.rest, 'report');
  const outputDir = takeOne(report.rest, 'output-dir');
  if ((concurrency.values === null) === (rate.values === null)) throw new UsageError('give exactly one of --concurrency LIST or --rate LIST');
  for (const forbidden of EXCLUDED.filter((f) => f !== 'concurrency' && f !== 'rate').map((f) => `--${f}`)) {
    if (outputDir.rest.some((a) => a === forbidden || a.startsWith(`${forbidden}=`))) throw new UsageError(`${forbidden} does not apply to a sweep (each point writes its own file under --output-dir)`);
  }
  const swept: 'concurrency' | 'rate' = concurrency.values !== null ? 'concurrency' : 'rate';
  const loads = (concurrency.values ?? rate.values) as number[];
  if (swept === 'concurrency' && loads.some((v) => !Number.isInteger(v))) throw new UsageError('--concurrency: every point must be a whole number');
  // Resolve every point's configuration before any request, so a bad flag fails at once.
  const configs = loads.map((load) => {
    const parsed = parseFlags([...outputDir.rest, `--${swept}`, String(load)], RUN_FLAGS);
    const config = resolveRunConfig(parsed.values, io.env, io.cwd, parsed.given);
    readRunSimConfig(config); // checked now, before any request; read again when the point starts its simulator
    return config;
  });
  if (report.value === '' || (report.value === null && rate.rest.some((a) => a === '--report' || a.startsWith('--report=')))) throw new UsageError('--report: expected a file name');
  const reportPath = report.value === null ? null : resolve(io.cwd, report.value);
  const dir = resolve(io.cwd, outputDir.value ?? join('results', `sweep-${referenceRunId(new Date()).replace(/^benchmark-/, '')}`));
  const files = loads.map((load) => join(dir, `${swept === 'rate' ? 'rate' : 'c'}${load}.json`));
  const contextBuckets = takeOne(outputDir.rest, 'context-buckets').value;
  const journals = checkSweepFiles(dir, files, reportPath, runInputs(configs[0]!, io.cwd, contextBuckets));
  const points: SweepPointInput[] = [];
  let anyFailed = false;
  for (const [i, config] of configs.entries()) {
    const load = loads[i]!;
    const file = files[i]!;
    io.stdout(`${utcSeconds(new Date())} point ${i + 1}/${loads.length}: ${swept} ${load}\n`);
    const outcome = await runPoint(config, io, journals[i]!);
    await writeResultFile(file, outcome.result);
    for (const warning of outcome.warnings) io.stderr(`warning (${swept} ${load}): ${warning}\n`);
    const journalGap = outcome.journal === null ? null : journalGapWarning(outcome.journal);
    if (journalGap !== null) io.stderr(`warning (${swept} ${load}): ${journalGap}\n`);
    anyFailed ||= Number(outcome.result['failed']) > 0;
    points.push({ load, file, result: outcome.result });
  }
  const summary = summarizeSweep(swept, configs[0]?.slo?.text ?? null, points);
  await writeFileAtomic(join(dir, 'sweep.json'), `${JSON.stringify(summary, null, 2)}\n`);
  io.stdout(`${formatSweep(summary)}\nsweep written to ${join(dir, 'sweep.json')}\n`);
  if (reportPath !== null) {
    const sources = await loadReportSources([join(dir, 'sweep.json')], io.cwd);
    for (const warning of sources.warnings) io.stderr(`warning: ${warning}\n`);
    await writeHtmlReport(reportPath, sources);
    io.stdout(`report written to ${reportPath}\n`);
  }
  return anyFailed ? EXIT.failed : EXIT.ok;
};

/**
 * Checks, before any request, every file the sweep writes (each point's result and journal,
 * sweep.json, --report) against each other and the runs' inputs; creates the output directory.
 * Returns each point's journal path (a fresh name beside the result when an earlier one is there).
 * @throws UsageError naming the flag(s) and the path (an output directory it created is removed).
 */
function checkSweepFiles(dir: string, files: readonly string[], reportPath: string | null, inputs: readonly ReadInput[]): string[] {
  checkCreatableDirectory(`--output-dir ${dir}`, dir);
  let created: string | undefined;
  try {
    created = mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new UsageError(`--output-dir ${dir}: cannot be created (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  try {
    const targets: WriteTarget[] = [];
    const journals: string[] = [];
    const taken = reportPath === null ? [] : [reportPath];
    for (const file of files) {
      const journal = freshJournalBeside(file, taken);
      journals.push(journal);
      targets.push({ flag: `the point result`, path: file, mode: 'replace' }, { flag: 'the point journal', path: journal, mode: 'create' });
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

async function runPoint(config: RunConfig, io: CliIO, journal: string): Promise<Awaited<ReturnType<typeof runBenchmark>>> {
  const { key: apiKey, warnings } = resolveApiKey(config.target, io.env);
  for (const warning of warnings) io.stderr(`warning: ${warning}\n`);
  const sim = config.target.baseUrl === null ? await startEmbeddedSimulator(readRunSimConfig(config)) : null;
  try {
    return await runBenchmark(config, { baseUrl: sim?.baseUrl ?? (config.target.baseUrl as string), apiKey, embeddedSimulator: sim !== null }, { journalPathFor: () => journal });
  } finally {
    await sim?.close();
  }
}

function takeOne(argv: string[], name: string): { value: string | null; rest: string[] } {
  const rest: string[] = [];
  let value: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === `--${name}`) value = argv[++i] ?? null;
    else if (arg.startsWith(`--${name}=`)) value = arg.slice(name.length + 3);
    else rest.push(arg);
  }
  return { value, rest };
}
