/**
 * The manifests as one multi-document YAML file for `kubectl apply -f`. kubectl reads YAML the
 * 1.1 way (sigs.k8s.io/yaml), where an unquoted `no` or `on` is a boolean: the documents are
 * written with the 1.1 schema, so every string that 1.1 would read as something else is quoted.
 */
import { stringify } from 'yaml';
import type { Manifest } from './kubernetes.js';

/** One `---`-separated document per manifest, in order, after a comment saying what made them. */
export function renderManifestsYaml(manifests: readonly Manifest[], comment: string): string {
  const header = comment
    .split('\n')
    .map((line) => `# ${line}`.trimEnd())
    .join('\n');
  const documents = manifests.map((manifest) =>
    // lineWidth 0: no folding, so the plan's one long JSON line stays one line.
    stringify(manifest, {
      version: '1.1',
      lineWidth: 0,
      minContentWidth: 0,
      directives: false,
      // Labels repeated in a selector are written out, not as YAML anchors and aliases.
      aliasDuplicateObjects: false,
    }),
  );
  return `${header}\n${documents.map((doc) => `---\n${doc}`).join('')}`;
}
