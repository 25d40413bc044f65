/**
 * `servebench sweep --concurrency 1,2,4,8 [run flags]` or `--rate 2,4,8 [run flags]`: one full
 * benchmark per load point (each its own result file and journal), then a summary of the points
 * (`sweep.json`): throughput against latency, the knee, and with `--slo` the highest load that
 * meets it. Without `--base-url` each point gets a fresh built-in simulator, so no point inherits
 * another's prefix cache or queue.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseFlags } from '../parse.js';
import { RUN_FLAGS, formatFlagHelp } from '../options.js';
import { SWEEP_EXCLUDED_RUN_FLAGS, SWEEP_FLAGS, commandSpec } from '../command-flags.js';
import { EXIT } from '../exit-codes.js';
import type { CliIO, Command } from '../io.js';
import { resolveRunConfig, type RunConfig } from '../../config/run-config.js';
import { resolveApiKey } from '../../config/api-key.js';
import { runBenchmark } from '../../runner/benchmark.js';
import { startEmbeddedSimulator } from '../embedded-sim.js';
import { assertWritableTarget, writeFileAtomic, writeResultFile } from '../../result/io.js';
import { loadReportSources, writeHtmlReport } from './report.js';
import { summarizeSweep, formatSweep, type SweepPointInput } from '../../report/sweep.js';
import { UsageError } from '../../util/errors.js';
import { utcSeconds, referenceRunId } from '../../result/build.js';
import { journalBeside } from './run.js';

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
    return resolveRunConfig(parsed.values, io.env, io.cwd, parsed.given);
  });
  if (report.value === '' || (report.value === null && rate.rest.some((a) => a === '--report' || a.startsWith('--report=')))) throw new UsageError('--report: expected a file name');
  const reportPath = report.value === null ? null : resolve(io.cwd, report.value);
  if (reportPath !== null) await assertWritableTarget(reportPath); // refused before any request
  const dir = resolve(io.cwd, outputDir.value ?? join('results', `sweep-${referenceRunId(new Date()).replace(/^benchmark-/, '')}`));
  mkdirSync(dir, { recursive: true });
  const points: SweepPointInput[] = [];
  let anyFailed = false;
  for (const [i, config] of configs.entries()) {
    const load = loads[i]!;
    const file = join(dir, `${swept === 'rate' ? 'rate' : 'c'}${load}.json`);
    io.stdout(`${utcSeconds(new Date())} point ${i + 1}/${loads.length}: ${swept} ${load}\n`);
    const outcome = await runPoint(config, io, file);
    await writeResultFile(file, outcome.result);
    for (const warning of outcome.warnings) io.stderr(`warning (${swept} ${load}): ${warning}\n`);
    anyFailed ||= Number(outcome.result['failed']) > 0;
    points.push({ load, file, result: outcome.result });
  }
  const summary = summarizeSweep(swept, configs[0]?.slo ?? null, points);
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

async function runPoint(config: RunConfig, io: CliIO, file: string): Promise<Awaited<ReturnType<typeof runBenchmark>>> {
  const { key: apiKey, warnings } = resolveApiKey(config, io.env);
  for (const warning of warnings) io.stderr(`warning: ${warning}\n`);
  const sim = config.baseUrl === null ? await startEmbeddedSimulator(config.inputs.simConfig) : null;
  try {
    return await runBenchmark(config, { baseUrl: sim?.baseUrl ?? (config.baseUrl as string), apiKey, embeddedSimulator: sim !== null }, { journalPathFor: () => journalBeside(file) });
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
