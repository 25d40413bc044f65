/**
 * servebench's library API (re-exports only).
 * @example
 * import { runBenchmark, runConfigFrom, serializeResult } from 'servebench';
 * const config = runConfigFrom({ requests: 8, 'ctx-tokens': 2048 });
 * const { result } = await runBenchmark(config, { baseUrl: 'http://127.0.0.1:8000/v1', apiKey: null, embeddedSimulator: false });
 * process.stdout.write(serializeResult(result));
 */
export {
  runBenchmark,
  planBenchmark,
  runPlannedBenchmark,
  type BenchmarkEvent,
  type BenchmarkOptions,
  type BenchmarkOutcome,
  type BenchmarkTarget,
} from './pipeline/benchmark.js';
export { JournalOutput, type JournalPath } from './pipeline/journal-output.js';
export type { RunOutput, RunStart, RunEnding, RunEndAddition } from './pipeline/run-output.js';
export { parsePlan, serializePlan, RUN_PLAN_SCHEMA, type RunPlan } from './plan/run-plan.js';
export { assembleResult, type RunHeader, type RunEnd } from './assemble/assemble.js';
export { executePlan, type ExecuteOptions, type Execution, type ExecutionTarget } from './execute/execute-plan.js';
export { checkSlice } from './plan/slice.js';
export { buildDryRunPlan, type DryRunPlan } from './plan/dry-run.js';
export { resolveRunConfig, type RunConfig } from './config/run-config.js';
export { RUN_DEFAULTS } from './config/defaults.js';
export { runConfigFrom, defaultRunValues } from './config/run-config-from.js';
export { streamChatCompletion, createDispatcher, type StreamRequest } from './client/index.js';
export type { RequestResult, RequestError } from './record/types.js';
export { summarize, type Summary } from './metrics/summarize.js';
export { percentile, nearestRankIndex } from './metrics/percentile.js';
export { exactMean } from './metrics/exact-mean.js';
export { ROW_FIELDS, RUN_METRICS } from './metrics/definitions.js';
export { buildResult, TIMING_METHODOLOGY, type RunMeta, type CapacityResult } from './result/build.js';
export { capacityResultSchema, checkCapacityResult } from './result/result-schema.js';
export { servebenchBlockSchema, type ServebenchBlock } from './result/servebench-schema.js';
export { serializeResult, serializeJson, toPyJson, pyFloatRepr } from './result/pyjson.js';
export { readResultFile, writeResultFile, writeJsonFile, parseResultText } from './result/io.js';
export { validateResult, type ValidationReport } from './result/validate.js';
export { detectEra, type Era } from './result/schema.js';
export { planContexts, REFERENCE_CONTEXT_BUCKETS, type ContextPlan } from './workload/context-plan.js';
export { PythonRandom } from './workload/mt19937.js';
export { UsageError, InputFileError } from './util/errors.js';
