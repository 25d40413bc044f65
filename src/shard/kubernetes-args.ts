/**
 * A pod's command line as the kubelet would run it, so tests and docs can run a manifest's shard
 * command locally: the container's env resolved in order (a `value` may use the variables before
 * it; a `fieldRef` to the completion-index annotation gives the pod's index), then every
 * `$(VAR)` in the args replaced. The rules are the kubelet's: `$$` is one `$`, a reference to an
 * unknown variable stays as written, and a `$` before anything else is left alone.
 */
import type { Manifest } from './kubernetes.js';

const INDEX_FIELD = "metadata.annotations['batch.kubernetes.io/job-completion-index']";

/** `text` with each `$(NAME)` replaced by `vars[NAME]` (kept as is when unset) and `$$` by `$`. */
export function expandKubernetesReferences(text: string, vars: ReadonlyMap<string, string>): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (char !== '$' || i + 1 === text.length) {
      out += char;
      i += 1;
      continue;
    }
    const next = text[i + 1]!;
    if (next === '$') {
      out += '$';
      i += 2;
    } else if (next === '(') {
      const close = text.indexOf(')', i + 2);
      if (close === -1) {
        // An unclosed reference is text; scanning goes on after the parenthesis.
        out += '$(';
        i += 2;
      } else {
        const name = text.slice(i + 2, close);
        out += vars.get(name) ?? `$(${name})`;
        i = close + 1;
      }
    } else {
      out += `$${next}`;
      i += 2;
    }
  }
  return out;
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath?: string } };
}

interface Container {
  name: string;
  args?: string[];
  env?: EnvVar[];
}

/**
 * The args of `container` (default: the first) of the pod that an Indexed Job `job` starts for
 * `index`, with JOB_COMPLETION_INDEX set as Kubernetes sets it (and as the env states it).
 * @throws Error when the manifest is not a Job with such a container (a programming error).
 */
export function podArgsForIndex(job: Manifest, index: number, container?: string): string[] {
  const spec = (job['spec'] as { template?: { spec?: { containers?: Container[] } } } | undefined)?.template?.spec;
  const containers = spec?.containers ?? [];
  const chosen = container === undefined ? containers[0] : containers.find((c) => c.name === container);
  if (job['kind'] !== 'Job' || chosen === undefined) throw new Error('podArgsForIndex: not a Job with that container');
  // The Job controller adds JOB_COMPLETION_INDEX first unless the container states it itself.
  const vars = new Map<string, string>([['JOB_COMPLETION_INDEX', String(index)]]);
  for (const variable of chosen.env ?? []) {
    if (variable.value !== undefined) vars.set(variable.name, expandKubernetesReferences(variable.value, vars));
    else if (variable.valueFrom?.fieldRef?.fieldPath === INDEX_FIELD) vars.set(variable.name, String(index));
  }
  return (chosen.args ?? []).map((arg) => expandKubernetesReferences(arg, vars));
}
