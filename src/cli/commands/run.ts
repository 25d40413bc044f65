/**
 * `servebench run`: resolve the configuration, start the built-in simulator when no target is
 * given, run the benchmark, write the result atomically and print the summary.
 * Exit codes: 0 all requests completed, 1 some failed (result still written), 2 bad usage,
 * 130 interrupted (partial result written).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseFlags } from '../parse.js';
import { RUN_FLAGS, formatFlagHelp } from '../options.js';
import { EXIT } from '../exit-codes.js';
import type { CliIO, Command } from '../io.js';
import { resolveRunConfig, checkOutputPath, type RunConfig } from '../../config/run-config.js';
import { runBenchmark, type BenchmarkEvent } from '../../runner/benchmark.js';
import { buildDryRunPlan, formatDryRunPlan } from '../../runner/dry-run.js';
import { startEmbeddedSimulator } from '../embedded-sim.js';
import { formatSummary } from '../../report/console.js';
import { writeResultFile } from '../../result/io.js';
import { serializeResult } from '../../result/pyjson.js';

const HELP = `usage: servebench run [flags]

Benchmarks an OpenAI-compatible /chat/completions endpoint with streamed requests and writes an
anvil-serving.benchmark/v1 result. Without --base-url it starts the built-in simulator.

${formatFlagHelp(RUN_FLAGS)}
`;

export const runCommand: Command = async (argv, io) => {
  const parsed = parseFlags(argv, RUN_FLAGS);
  if (parsed.values['help'] === true) {
    io.stdout(HELP);
    return EXIT.ok;
  }
  const config = resolveRunConfig(parsed.values, io.env, io.cwd);
  if (config.dryRun) {
    const plan = await buildDryRunPlan(config);
    io.stdout(config.json ? `${JSON.stringify(plan, null, 2)}\n` : `${formatDryRunPlan(plan)}\n`);
    return EXIT.ok;
  }
  const apiKey = config.apiKeyEnv === null ? null : (io.env[config.apiKeyEnv] ?? '').trim();
  const say = (text: string): void => {
    if (!config.json) io.stdout(`${text}\n`);
    else io.stderr(`${text}\n`);
  };

  const sim = config.baseUrl === null ? await startEmbeddedSimulator(config.simConfig, io.cwd) : null;
  const interrupt = new AbortController();
  const onSignal = (): void => {
    if (!interrupt.signal.aborted) io.stderr('\nservebench run: interrupted; cancelling in-flight requests and writing a partial result\n');
    interrupt.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    if (sim !== null) say(`no --base-url: benchmarking the built-in simulator at ${sim.baseUrl} (model ${sim.model})`);
    const target = { baseUrl: sim?.baseUrl ?? (config.baseUrl as string), apiKey: apiKey === '' ? null : apiKey, embeddedSimulator: sim !== null };
    const outcome = await runBenchmark(config, target, { signal: interrupt.signal, onEvent: (event) => report(event, config, say, io) });
    const path = outputPathFor(config, io, String(outcome.result['run_id']));
    await writeResultFile(path, outcome.result);
    if (config.json) io.stdout(serializeResult(outcome.result));
    else {
      if (io.isTTY && !config.quiet) io.stdout('\n');
      io.stdout(`${formatSummary(outcome.result)}\n`);
    }
    for (const warning of (outcome.result['servebench'] as { warnings?: string[] }).warnings ?? []) io.stderr(`warning: ${warning}\n`);
    say(`result written to ${path}`);
    if (outcome.interrupted) return EXIT.interrupted;
    return Number(outcome.result['failed']) > 0 ? EXIT.failed : EXIT.ok;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await sim?.close();
  }
};

function report(event: BenchmarkEvent, config: RunConfig, say: (text: string) => void, io: CliIO): void {
  if (event.kind === 'start') {
    const window = event.window === null ? 'unknown' : `${event.window}(ctx<=${event.cap ?? '?'})`;
    const thinking = config.thinking.mode !== 'default' ? ` thinking=${config.thinking.mode}` : '';
    const effort = config.thinking.reasoningEffort !== null ? ` reasoning_effort=${config.thinking.reasoningEffort}` : '';
    const context = config.ctxTokens > 0 ? `ctx=${config.ctxTokens}` : `ctx=sampled(seed ${config.seed})`;
    say(`BENCH model=${event.model} n=${event.requests} concurrency=${event.concurrency} ${config.burst > 0 ? 'BURST(shared-prefix)' : 'mixed'} ${context} max_tokens=${config.maxTokens} max_model_len=${window}${thinking}${effort}`);
    return;
  }
  if (event.kind === 'phase') {
    if (!config.quiet) say(event.text);
    return;
  }
  if (event.kind === 'warning') {
    io.stderr(`warning: ${event.text}\n`);
    return;
  }
  const { result, done, total } = event;
  if (!result.ok && result.error !== null) io.stderr(`  req ${result.requestIndex} error: ${result.error.type}: ${result.error.message.slice(0, 300)}\n`);
  if (config.quiet || config.json) return;
  if (io.isTTY) io.stdout(`\r  ${done}/${total} requests finished`);
  else if (done === total || done % Math.max(1, Math.ceil(total / 4)) === 0) io.stdout(`  ${done}/${total} requests finished\n`);
}

/** `--output`, or `results/<run_id>.json` under the working directory, never overwriting an earlier run. */
function outputPathFor(config: RunConfig, io: CliIO, runId: string): string {
  if (config.output !== null) return config.output;
  const dir = join(io.cwd, 'results');
  mkdirSync(dir, { recursive: true });
  let path = join(dir, `${runId}.json`);
  for (let n = 2; existsSync(path); n++) path = join(dir, `${runId}-${n}.json`);
  checkOutputPath(path);
  return path;
}
