/**
 * RunPlans made by the plan stage itself (planRun) from run flags, with a fixed-ratio counter and
 * a fixed window, so no server is involved.
 */
import { parseFlags } from '../../src/cli/parse.js';
import { RUN_FLAGS } from '../../src/cli/options.js';
import { resolveRunConfig } from '../../src/config/run-config.js';
import { planLoad } from '../../src/plan/load-plan.js';
import { promptCap } from '../../src/plan/prompt-cap.js';
import { planRun } from '../../src/plan/make-plan.js';
import type { RunPlan } from '../../src/plan/run-plan.js';
import { fixedRatioSizer } from '../../src/workload/workload.js';

/** The plan `servebench plan ARGS` would make against a model `m` with a 32768-token window; files resolve under `cwd`. */
export async function planOf(args: string[], cwd: string): Promise<RunPlan> {
  const parsed = parseFlags(args, RUN_FLAGS);
  const config = resolveRunConfig(parsed.values, {}, cwd, parsed.given);
  const load = planLoad(config);
  const window = 32768;
  const cap = promptCap(window, config.workload.maxTokens, config.workload.margin);
  const sizer = fixedRatioSizer(3);
  const { plan } = await planRun(
    config,
    load,
    { model: 'm', window, windowSource: 'exact', cap },
    { sizer, info: () => ({ method: sizer.method }) },
  );
  return plan;
}
