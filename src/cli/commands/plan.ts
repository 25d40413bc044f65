/**
 * `servebench plan [run flags] --output FILE`: write the RunPlan a run with these flags would
 * execute (src/plan/run-plan.ts), and nothing else. The server is asked only what sizing needs
 * (`/models` for the model and window, the tokenizer or a calibration probe): no benchmark request
 * is sent. Without --base-url the built-in simulator answers, as for `run`.
 * `servebench run --plan FILE` executes the plan. Exit codes: 0 written, 2 bad usage.
 */
import { resolve } from 'node:path';
import { commandSpec } from '../command-flags.js';
import { parseCommandArgs } from '../args/parse.js';
import type { FlagValue } from '../../config/flag-value.js';
import { EXIT } from '../../util/exit-codes.js';
import type { CliIO, Command } from '../io.js';
import { resolveRunConfig } from '../../config/run-config.js';
import { runInputs } from '../../config/run-files.js';
import { planBenchmark } from '../../pipeline/benchmark.js';
import { serializePlan, type RunPlan } from '../../plan/run-plan.js';
import { writeFileAtomic } from '../../result/io.js';
import { UsageError } from '../../util/errors.js';
import { checkWriteTargets, type WriteTarget } from '../../util/write-targets.js';
import { withRunFrame } from '../run-frame.js';

const SPEC = commandSpec('plan');

export const planCommand: Command = async (argv, io) => {
  const parsed = parseCommandArgs(argv, SPEC);
  if (typeof parsed.values['output'] !== 'string')
    throw new UsageError('--output FILE is required: where to write the plan');
  const output = resolve(io.cwd, parsed.values['output']);
  const plan = await planFromRunFlags(parsed.values as Record<string, FlagValue>, parsed.given, io, {
    say: io.stdout,
    output: { flag: '--output', path: output, mode: 'replace' },
  });
  await writeFileAtomic(output, serializePlan(plan));
  io.stdout(
    `plan of ${plan.requests.count} requests (${plan.identity.prompt_set_id ?? 'prompts sized during the run'}) written to ${output}\n`,
  );
  return EXIT.ok;
};

/**
 * The plan a run with these run flags would execute, made as `servebench plan` makes it (also for
 * `servebench k8s`). `output` (the file the caller writes) is checked against the run's inputs
 * before the server is asked anything; `say` prints the phases unless `--quiet`.
 */
export async function planFromRunFlags(
  values: Record<string, FlagValue>,
  given: ReadonlySet<string>,
  io: CliIO,
  options: { say: (text: string) => void; output: WriteTarget | null },
): Promise<RunPlan> {
  const config = resolveRunConfig(values, io.env, io.cwd, given);
  const quiet = values['quiet'] === true;
  const contextBuckets = typeof values['context-buckets'] === 'string' ? values['context-buckets'] : null;
  // The plan never replaces one of its own inputs.
  if (options.output !== null) checkWriteTargets([options.output], runInputs(config, io.cwd, contextBuckets));
  // A signal while probing or sizing ends the planning at once (InterruptedError, exit 130) and
  // nothing is written: the frame's set-up rule, as for run (docs/output-files.md).
  return withRunFrame(config, io, 'plan', async (frame) => {
    const { target, sim } = await frame.startTarget();
    if (sim !== null && !quiet)
      options.say(`no --base-url: planning against the built-in simulator at ${sim.baseUrl} (model ${sim.model})\n`);
    return await planBenchmark(config, target, {
      stopSignal: frame.stopSignal,
      onEvent: (event) => {
        if (event.kind === 'warning') io.stderr(`warning: ${event.text}\n`);
        else if (event.kind === 'phase' && !quiet) options.say(`${event.text}\n`);
      },
    });
  });
}
