/**
 * Reads samples out of a Prometheus text exposition for tests that check values by name and
 * labels. Deliberately small (a sample line is `name{labels} value`): the project's parser is
 * src/scrape/exposition.ts, tested on its own; this only has to read what prom-client and the
 * live exporter write.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

/** Every sample of `text` (comments and blank lines skipped). */
export function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) labels[name!] = unescape(value!);
    out.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return out;
}

/** The value of the one sample named `name` whose labels include `labels`; throws when none or several match. */
export function valueOf(text: string, name: string, labels: Record<string, string> = {}): number {
  const found = samples(text).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]!.value;
}
