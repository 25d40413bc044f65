/** The `servebench` object of a result as known when the run starts: provenance and the full resolved configuration. */
import type { RunPlan } from '../plan/run-plan.js';
import type { LoadBlock, ServebenchStart, SizingBlock } from '../result/servebench-schema.js';

/** Facts of the machine and process that execute the plan. */
export interface ExecutionHost {
  toolVersion: string;
  nodeVersion: string;
  host: string;
  embeddedSimulator: boolean;
}

/** Keys follow the result's rules: snake_case, float-valued keys end in a unit suffix. */
export function servebenchBlock(plan: RunPlan, host: ExecutionHost): ServebenchStart {
  const identity = plan.identity;
  return {
    tool_version: host.toolVersion,
    node_version: host.nodeVersion,
    host: host.host,
    embedded_simulator: host.embeddedSimulator,
    cache_policy: identity.cache_policy,
    prompt_method: identity.prompt_method,
    context_source: identity.context_source,
    // The plan carries these two as JSON: they are the blocks as typed here.
    sizing: identity.sizing as SizingBlock,
    window_source: identity.window_source,
    prompt_cap_tokens: identity.prompt_cap_tokens,
    load: plan.load_summary as LoadBlock,
    config: plan.config,
  };
}
