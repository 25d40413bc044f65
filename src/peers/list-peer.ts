/**
 * Another tool's file as lines of `servebench list` (result/inventory.ts, docs/interop.md): one
 * per run, with the tool's name. A latency or throughput column holds a figure only when it is
 * servebench's definition: the tool's own figure of that definition, or the figure recomputed from
 * the file's per-request rows; a figure defined otherwise (numpy's median, a throughput over
 * another wall time) is left out rather than shown beside servebench's as if it were one.
 */
import type { ListedRun } from '../result/inventory.js';
import type { PeerRun } from './peer-run.js';
import { servebenchFigure } from './servebench-figures.js';

/** The load as `list` writes it: `c=8`, `rate=4/s`, `rate=4/s c<=8`. */
function loadText(run: PeerRun): string {
  const { concurrency, rate_rps: rate } = run.facts;
  const n = run.facts.successes === null ? '?' : run.facts.successes + (run.facts.failures ?? 0);
  if (rate !== null && Number.isFinite(rate))
    return `n=${n} rate=${rate}/s${concurrency !== null ? ` c<=${concurrency}` : ''}`;
  return `n=${n} c=${concurrency ?? '?'}`;
}

function listedPeerRun(relPath: string, run: PeerRun): ListedRun {
  const f = run.facts;
  return {
    path: run.entry === null ? relPath : `${relPath} (${run.entry})`,
    tool: run.tool,
    run_date: null,
    model: f.model ?? '(not recorded)',
    protocol: null,
    era: `peer:${run.format} v${run.reader_version}`,
    load: loadText(run),
    requests: f.successes === null ? null : f.successes + (f.failures ?? 0),
    completed: f.successes,
    failed: f.failures,
    context: f.dataset ?? '–',
    ttft_p50_ms: servebenchFigure(run, 'ttft_p50_ms')?.value ?? null,
    ttft_p95_ms: servebenchFigure(run, 'ttft_p95_ms')?.value ?? null,
    throughput_tok_s: servebenchFigure(run, 'throughput_tok_s')?.value ?? null,
    engine: null,
  };
}

/** The runs of another tool's file (`relPath` below the listed directory) as listed lines. */
export function listPeerRuns(relPath: string, runs: readonly PeerRun[]): ListedRun[] {
  return runs.map((run) => listedPeerRun(relPath, run));
}
