/**
 * `servebench k8s --shards N --name NAME --image IMAGE --base-url URL (--plan P.json | run flags)`:
 * print the Kubernetes manifests of one plan run by N shard pods (src/shard/kubernetes.ts), as one
 * YAML file on stdout or at --output. The plan is a saved one (--plan, its text as is) or made from
 * the run flags exactly as `servebench plan` makes it. Nothing is applied, no benchmark request is
 * sent. Exit codes: 0 printed, 2 bad usage.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { commandSpec } from '../command-flags.js';
import { parseCommandArgs } from '../args/parse.js';
import { RUN_FLAGS } from '../options.js';
import type { FlagValue } from '../../config/flag-value.js';
import { EXIT } from '../../util/exit-codes.js';
import type { Command } from '../io.js';
import { readPlanFile } from '../plan-file.js';
import { planFromRunFlags } from './plan.js';
import { serializePlan, type RunPlan } from '../../plan/run-plan.js';
import { writeFileAtomic } from '../../result/io.js';
import { checkKubernetesOptions, kubernetesManifests, type KubernetesOptions } from '../../shard/kubernetes.js';
import { renderManifestsYaml } from '../../shard/kubernetes-yaml.js';
import { UsageError } from '../../util/errors.js';
import { TOOL_VERSION } from '../../util/version.js';
import { checkWriteTargets, type WriteTarget } from '../../util/write-targets.js';

const SPEC = commandSpec('k8s');

/** The flags that are k8s's own, even where a run flag has the same name (`--output`, `--plan`). */
const OWN = new Set(SPEC.flags.map((flag) => flag.name));
/** Run flags that mean the same here and in a run (`--base-url` is also the target the plan is sized against). */
const SHARED = new Set(['base-url', 'quiet', 'help']);
const RUN_NAMES = new Set(RUN_FLAGS.map((flag) => flag.name));

export const k8sCommand: Command = async (argv, io) => {
  const parsed = parseCommandArgs(argv, SPEC);
  const v = parsed.values;
  const str = (name: string): string | null => (typeof v[name] === 'string' ? v[name] : null);
  for (const [flag, what] of [
    ['shards', 'how many shard pods'],
    ['name', 'what the objects are called'],
    ['image', 'the servebench image the pods run'],
    ['base-url', 'the target the pods benchmark'],
  ] as const)
    if (v[flag] === undefined) throw new UsageError(`--${flag} is required: ${what}`);
  const options: Omit<KubernetesOptions, 'planJson'> = {
    name: str('name')!,
    namespace: str('namespace'),
    shards: v['shards'] as number,
    image: str('image')!,
    baseUrl: str('target-url') ?? str('base-url')!,
    apiKeySecret: str('api-key-secret'),
    redis: str('redis')!,
    startAt: str('start-at'),
    rendezvousTimeoutS: typeof v['rendezvous-timeout'] === 'number' ? v['rendezvous-timeout'] : null,
    maxClockUncertaintyMs: typeof v['max-clock-uncertainty'] === 'number' ? v['max-clock-uncertainty'] : null,
    // One rendezvous NAME per invocation: a NAME serves one run (shard/rendezvous.ts).
    rendezvousName: `${str('name')!.slice(0, 55)}-${randomBytes(4).toString('hex')}`,
    cpu: str('cpu')!,
    memory: str('memory')!,
    storageClass: str('storage-class'),
    storage: str('storage')!,
    allowPartial: v['allow-partial'] === true,
  };
  // Every manifest option is checked before the plan is made (which may ask the server).
  checkKubernetesOptions(options);
  const outputPath = str('output') === null ? null : resolve(io.cwd, str('output')!);
  const output: WriteTarget | null =
    outputPath === null ? null : { flag: '--output', path: outputPath, mode: 'replace' };
  const { plan, text } = await thePlan(parsed.values as Record<string, FlagValue>, parsed.given, io, output);
  const yaml = renderManifestsYaml(kubernetesManifests({ ...options, planJson: text }), header(options, plan));
  if (outputPath === null) {
    io.stdout(yaml);
  } else {
    await writeFileAtomic(outputPath, yaml);
    io.stderr(`manifests of ${options.shards} shards written to ${outputPath}\n`);
  }
  return EXIT.ok;
};

/** The saved plan's text as is, or the plan the run flags make; `output` is checked against the inputs either way. */
async function thePlan(
  values: Record<string, FlagValue>,
  given: ReadonlySet<string>,
  io: Parameters<Command>[1],
  output: WriteTarget | null,
): Promise<{ plan: RunPlan; text: string }> {
  const planFlag = typeof values['plan'] === 'string' ? values['plan'] : null;
  if (planFlag !== null) {
    const planFile = resolve(io.cwd, planFlag);
    const fixed = [...given].filter((name) => !OWN.has(name) && !SHARED.has(name));
    if (fixed.length > 0)
      throw new UsageError(
        `--plan fixes the model, the workload, the load and the client bounds: ${fixed.map((f) => `--${f}`).join(', ')} cannot be given with it (make a new plan with servebench plan instead)`,
      );
    if (output !== null) checkWriteTargets([output], [{ flag: '--plan', path: planFile }]);
    return readPlanFile(planFile);
  }
  // Only the run's own flags reach the run configuration: `--output` here is the YAML, not a result.
  const keep = (name: string): boolean => RUN_NAMES.has(name) && (!OWN.has(name) || SHARED.has(name));
  const runValues = Object.fromEntries(Object.entries(values).filter(([name]) => keep(name)));
  const runGiven = new Set([...given].filter(keep));
  // stdout carries the YAML: what planning says goes to stderr.
  const plan = await planFromRunFlags(runValues, runGiven, io, { say: io.stderr, output });
  return { plan, text: serializePlan(plan) };
}

/** The YAML's opening comment: what made it and what to do with it (never a secret: the URL has none). */
function header(options: Omit<KubernetesOptions, 'planJson'>, plan: RunPlan): string {
  const id = plan.identity.prompt_set_id ?? 'prompts sized during the run';
  return [
    `servebench k8s ${TOOL_VERSION}: ${plan.requests.count} requests (${id}) in ${options.shards} shards against ${options.baseUrl}`,
    `kubectl apply -f FILE; when job/${options.name} has finished, resume job/${options.name}-merge (docs/kubernetes.md)`,
  ].join('\n');
}
