/**
 * vLLM `vllm bench sweep serve` output, as vllm/benchmarks/sweep/serve.py (vllm-project/vllm,
 * commit 4fa9174d) and param_sweep.py (commit 52ef833e) write it. The sweep runs `vllm bench
 * serve --save-result --percentile-metrics ttft,tpot,itl,e2el` once per run of every combination
 * of `--serve-params` and `--bench-params` (their Cartesian product, `--num-runs` times each), under
 * `<output-dir>/<timestamp>/SERVE--k=v-BENCH--k=v/`:
 *
 * - `run=N.json`: the bench serve result, rewritten (indented) with `run_number` (N, from 0) and
 *   then every serve and bench override merged in with Python's `dict.update`. An override of a
 *   key bench serve already writes (`request_rate`, `max_concurrency`, `num_prompts`) replaces its
 *   value where it stands; any other key (`max_num_seqs`, the `_benchmark_name` of a dict-form
 *   params file) is appended after `run_number`. So the keys after `run_number` are the swept
 *   parameters bench serve does not write itself.
 * - `summary.json`: a JSON array of that combination's runs (the run files' objects).
 * - `summary.csv` (one per sweep): every run of every combination as a pandas table; not read here.
 *
 * Each run is an ordinary bench serve result to the vLLM reader (vllm.ts); this module only finds
 * the runs of a file and labels them.
 */
import { InputFileError } from '../util/errors.js';
import { isObject } from './dotted.js';

// Sources: vllm-project/vllm vllm/benchmarks/sweep/serve.py @ 4fa9174d2f7609e184592675e0f4313427590048;
// vllm/benchmarks/sweep/param_sweep.py @ 52ef833e58d28e3bc9dd8ba68942896d92979cca.

/** The key the sweep adds to every run before its overrides. */
const RUN_NUMBER = 'run_number';

/** Whether a run was written by `vllm bench sweep` (it carries the sweep's `run_number`). */
export function isSweepRun(run: Record<string, unknown>): boolean {
  return typeof run[RUN_NUMBER] === 'number';
}

/** The parameters the sweep appended to the run (the keys after `run_number`), in the file's order. */
function sweepParameters(run: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(run);
  const at = keys.indexOf(RUN_NUMBER);
  return at < 0 ? {} : Object.fromEntries(keys.slice(at + 1).map((key) => [key, run[key]]));
}

const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * A sweep run's label: its `_benchmark_name` when it has one, its run number, the appended
 * parameters, then the offered rate and concurrency cap (which a bench override replaces in place,
 * so they are given as the run has them whether or not they were swept). Null for a run that is
 * not a sweep's.
 */
export function sweepLabel(run: Record<string, unknown>): string | null {
  if (!isSweepRun(run)) return null;
  const params = sweepParameters(run);
  const name = params['_benchmark_name'];
  const parts = [`run_number=${text(run[RUN_NUMBER])}`];
  for (const [key, value] of Object.entries(params)) if (key !== '_benchmark_name') parts.push(`${key}=${text(value)}`);
  for (const key of ['request_rate', 'max_concurrency'])
    if (key in run && run[key] !== null && !(key in params)) parts.push(`${key}=${text(run[key])}`);
  return `${typeof name === 'string' && name !== '' ? `sweep ${name}: ` : 'sweep '}${parts.join(', ')}`;
}

/**
 * The runs of a sweep's `summary.json` (a JSON array of bench serve results), each labelled as
 * above (`sweep run N` when it lacks a run number): null when the array's elements are not all
 * `isRun` objects (another tool's per-request records, or an empty array). An array some of whose
 * elements are vLLM runs and others not is an InputFileError naming the first element that is not.
 */
export function sweepSummaryRuns(
  parsed: unknown[],
  file: string,
  isRun: (run: Record<string, unknown>) => boolean,
): { run: Record<string, unknown>; label: string }[] | null {
  if (parsed.length === 0) return null;
  const runs = parsed.map((v) => (isObject(v) && isRun(v) ? v : null));
  const first = runs.findIndex((r) => r !== null);
  if (first < 0) return null;
  const bad = runs.findIndex((r) => r === null);
  if (bad >= 0)
    throw new InputFileError(
      file,
      `a JSON array of vLLM bench serve runs (as a vllm bench sweep summary.json) whose element ${bad + 1} is not one (no completed/failed/duration and latency summary)`,
    );
  return (runs as Record<string, unknown>[]).map((run, i) => ({ run, label: sweepLabel(run) ?? `sweep run ${i + 1}` }));
}
