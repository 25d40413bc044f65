/** Runs `servebench sim` as its own process, so a test's client timing is not disturbed by the simulator sharing its event loop. */
import { after, before } from 'node:test';
import { startSim } from '../../bench/harness.js';

export interface SimProcess {
  /** Base URL with `/v1`, as a client is given it. */
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the simulator with `config` on 127.0.0.1, port 0 (unpinned); resolves once it listens. */
export async function startSimProcess(config: Record<string, unknown>): Promise<SimProcess> {
  const sim = await startSim(config, null, 'ignore');
  return { url: `${sim.url}/v1`, pid: sim.pid, stop: () => sim.stop() };
}

/**
 * Starts one simulator process per named config before the calling file's tests and stops them
 * all after; the returned object holds them by name once the tests run.
 */
export function simProcessesForFile<K extends string>(
  configs: Record<K, Record<string, unknown>>,
): Record<K, SimProcess> {
  const handles = {} as Record<K, SimProcess>;
  before(async () => {
    for (const name of Object.keys(configs) as K[]) handles[name] = await startSimProcess(configs[name]);
  });
  after(async () => {
    for (const handle of Object.values<SimProcess>(handles)) await handle.stop();
  });
  return handles;
}
