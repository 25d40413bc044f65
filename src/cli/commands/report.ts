/**
 * `servebench report FILE… [--html OUT.html] [--csv OUT.csv]`: the terminal summary of result
 * files (and of a sweep summary), a self-contained HTML report (report/html/page.ts), and/or the
 * per-request rows as CSV. Files may be results of any era, other tools' result files (peers/,
 * shown beside servebench's runs: report/side-by-side.ts) and at most one `sweep.json`, whose
 * point results are loaded too. A result that keeps its rows in its records file (`--records`
 * past `--inline-rows`) is drawn from them. Exit 0, or 2 for bad usage or an unreadable file.
 */

import path from 'node:path';
import { commandSpec } from '../command-flags.js';
import { parseCommandArgs } from '../args/parse.js';
import { writeFileAtomic } from '../../result/io.js';
import { renderShow } from '../../result/show.js';
import { resultView, runView, type RunView } from '../../result/run-view.js';
import type { CapacityResult } from '../../result/result-schema.js';
import type { ResultDocument } from '../../result/schema.js';
import { withRecordsFileRows, type RecordsNeed } from '../../result/records-validate.js';
import { rowsCsv } from '../../report/csv.js';
import { renderHtmlReport } from '../../report/html/page.js';
import { formatSweep, type SweepSummary } from '../../report/sweep.js';
import { UsageError } from '../../util/errors.js';
import { openInput } from '../../report/open-input.js';
import { formatSideBySide, sideBySideRows, type PeerInput } from '../../report/side-by-side.js';
import { renderPeerRun } from '../../peers/render-peer.js';
import { checkWriteTargets, type ReadInput, type WriteTarget } from '../../util/write-targets.js';
import { TOOL_VERSION } from '../../util/version.js';
import { EXIT } from '../../util/exit-codes.js';
import type { CliIO, Command } from '../io.js';

const SPEC = commandSpec('report');

/** Results and at most one sweep, as loaded for a report. */
export interface ReportSources {
  runs: RunView[];
  parsed: ResultDocument[];
  /** Other tools' runs, one per run of each of their files. */
  peers: PeerInput[];
  sweep: SweepSummary | null;
  warnings: string[];
  /** Absolute paths of every file read (the sweep's point results included). */
  inputs: string[];
}

/**
 * Loads results and a sweep summary (whose point files are looked up as written, then beside it).
 * A result that keeps its rows in its records file has them read from it: every row for the
 * HTML and CSV outputs, the failures alone for the terminal summary (`need`).
 */
export async function loadReportSources(
  files: readonly string[],
  cwd: string,
  need: RecordsNeed,
): Promise<ReportSources> {
  const out: ReportSources = { runs: [], parsed: [], peers: [], sweep: null, warnings: [], inputs: [] };
  for (const file of files) {
    const read = await openInput(file, { accept: ['result', 'sweep', 'peer'], cwd });
    out.inputs.push(read.path);
    if (read.kind === 'peer') {
      out.peers.push(...read.runs.map((run) => ({ file, run })));
    } else if (read.kind === 'result') {
      const result = await withRecordsFileRows(read.loaded.result, read.path, need);
      out.runs.push(runView(file, result));
      out.parsed.push(result);
    } else {
      if (out.sweep !== null) throw new UsageError('a report takes at most one sweep summary');
      out.sweep = read.summary;
      await loadSweepPoints(read.summary, read.path, cwd, out, need);
    }
  }
  return out;
}

/** A sweep's point results, each looked up as written, then beside the summary; one missing is a warning. */
async function loadSweepPoints(
  sweep: SweepSummary,
  full: string,
  cwd: string,
  out: ReportSources,
  need: RecordsNeed,
): Promise<void> {
  for (const point of sweep.points) {
    const candidates = [
      path.resolve(path.dirname(full), point.file),
      path.join(path.dirname(full), path.basename(point.file)),
    ];
    let loaded = false;
    for (const candidate of candidates) {
      const got = await openInput(candidate, { accept: ['result'] }).catch(() => null);
      if (got === null) continue;
      // Found, so a records file that is missing or changed is an error, not a point drawn without rows.
      const result = await withRecordsFileRows(got.loaded.result, candidate, need);
      out.runs.push(runView(shownPath(candidate, cwd), result));
      out.parsed.push(result);
      out.inputs.push(candidate);
      loaded = true;
      break;
    }
    if (!loaded)
      out.warnings.push(
        `sweep point ${point.load}: result ${point.file} not found or unreadable; drawn from the summary only`,
      );
  }
}

/** A sweep point's file as a report names it: relative to the working directory when it is below it. */
function shownPath(file: string, cwd: string): string {
  const rel = path.relative(cwd, file);
  return rel === '' || rel.startsWith('..') ? file : rel;
}

/**
 * The report's sources for a sweep just run, from memory: its summary and each point's result as
 * assembled, named as {@link loadReportSources} names them when it reads the files back.
 */
export function sweepReportSources(
  sweep: SweepSummary,
  points: readonly { file: string; result: CapacityResult }[],
  cwd: string,
): Pick<ReportSources, 'runs' | 'sweep'> {
  const runs = sweep.points.flatMap((point) => {
    const made = points.find((each) => each.file === point.file);
    return made === undefined ? [] : [resultView(shownPath(made.file, cwd), made.result)];
  });
  return { runs, sweep };
}

/** Writes the HTML report of loaded sources to `out` (atomically). */
export async function writeHtmlReport(
  out: string,
  sources: Pick<ReportSources, 'runs' | 'sweep'> & Partial<Pick<ReportSources, 'peers'>>,
): Promise<void> {
  const html = renderHtmlReport({
    runs: sources.runs,
    sweep: sources.sweep,
    peers: sources.peers ?? [],
    generatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    toolVersion: TOOL_VERSION,
  });
  await writeFileAtomic(out, html);
}

/** The `report` subcommand (see the module comment). */
export const reportCommand: Command = async (argv, io: CliIO) => {
  const { values, positionals } = parseCommandArgs(argv, SPEC);
  const html = values['html'] as string | undefined;
  const csv = values['csv'] as string | undefined;
  const targets: WriteTarget[] = [];
  if (html !== undefined) targets.push({ flag: '--html', path: path.resolve(io.cwd, html), mode: 'replace' });
  if (csv !== undefined) targets.push({ flag: '--csv', path: path.resolve(io.cwd, csv), mode: 'replace' });
  const asInputs = (files: readonly string[]): ReadInput[] =>
    files.map((file) => ({ flag: 'result', path: path.resolve(io.cwd, file) }));
  checkWriteTargets(targets, asInputs(positionals)); // before reading anything
  const sources = await loadReportSources(
    positionals,
    io.cwd,
    html === undefined && csv === undefined ? 'failures' : 'rows',
  );
  checkWriteTargets(targets, asInputs(sources.inputs)); // a sweep's point results are inputs too
  for (const warning of sources.warnings) io.stderr(`warning: ${warning}\n`);
  if (html === undefined && csv === undefined) {
    const parts = sources.parsed.map((p, i) => renderShow(p, sources.runs[i]!.file));
    parts.push(...sources.peers.map((peer) => renderPeerRun(peer.run, peer.file, false)));
    if (sources.peers.length > 0) parts.push(formatSideBySide(sideBySideRows(sources.runs, sources.peers)));
    if (sources.sweep !== null) parts.unshift(`sweep over ${sources.sweep.swept}\n${formatSweep(sources.sweep)}\n`);
    io.stdout(parts.join('\n'));
    return EXIT.ok;
  }
  if (html !== undefined) {
    await writeHtmlReport(path.resolve(io.cwd, html), sources);
    io.stdout(`report written to ${html}\n`);
  }
  if (csv !== undefined) {
    await writeFileAtomic(path.resolve(io.cwd, csv), rowsCsv(sources.runs));
    const skipped =
      sources.peers.length === 0
        ? ''
        : ` (servebench's runs only: other tools' rows have other columns; servebench show --json gives them)`;
    io.stdout(`${sources.runs.reduce((n, r) => n + r.rows.length, 0)} request rows written to ${csv}${skipped}\n`);
  }
  return EXIT.ok;
};
