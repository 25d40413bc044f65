/**
 * `--metrics-port`, `--metrics-host`, `--metrics-linger` of `servebench run` (docs/monitoring.md):
 * read and checked with the other flags, the exporter started before anything is sent (a port
 * in use is exit 2 with nothing measured), and its end after the run — kept serving until one
 * scrape has read the final values, or the linger time passes.
 */
import type { FlagValue } from '../config/flag-value.js';
import type { LiveExporter } from '../live/exporter.js';
import { UsageError } from '../util/errors.js';

export interface LiveMetricsFlags {
  host: string;
  port: number;
  lingerS: number;
}

/** The live-metrics flags as parsed, or null without --metrics-port (the other two are refused alone). */
export function liveMetricsFlags(
  values: Readonly<Record<string, FlagValue>>,
  given: ReadonlySet<string>,
): LiveMetricsFlags | null {
  if (typeof values['metrics-port'] !== 'number') {
    for (const name of ['metrics-host', 'metrics-linger'])
      if (given.has(name)) throw new UsageError(`--${name} applies only with --metrics-port N`);
    return null;
  }
  return {
    port: values['metrics-port'],
    host: String(values['metrics-host']).trim(),
    lingerS: Number(values['metrics-linger']),
  };
}

/** Starts serving and prints the address once; `constantLabels` label every series (a shard's). */
export async function startLiveMetrics(
  flags: LiveMetricsFlags,
  say: (text: string) => void,
  constantLabels: Readonly<Record<string, string>> = {},
): Promise<LiveExporter> {
  // Loaded only when --metrics-port asks for it: a run without it never loads prom-client.
  const { startLiveExporter } = await import('../live/exporter.js');
  const exporter = await startLiveExporter({ host: flags.host, port: flags.port, constantLabels });
  say(`live metrics at ${exporter.url}`);
  return exporter;
}

/**
 * After the run: serves until the final values are scraped or --metrics-linger passes, said in
 * one line so a wait is never silent. An interrupted run (`stop` aborted) closes at once, as does
 * a signal while waiting.
 */
export async function finishLiveMetrics(
  exporter: LiveExporter,
  flags: LiveMetricsFlags,
  stop: AbortSignal,
  say: (text: string) => void,
): Promise<void> {
  const lingerS = stop.aborted ? 0 : flags.lingerS;
  if (lingerS > 0) say(`live metrics: serving the final values until the next scrape (at most ${lingerS} s)`);
  await exporter.finish(lingerS, stop);
}
