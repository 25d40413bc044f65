/** Runs `servebench sim` as its own process, so a test's client timing is not disturbed by the simulator sharing its event loop. */
import { after, before } from 'node:test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_PATH } from './cli.js';

export interface SimProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the simulator with `config` on 127.0.0.1, port 0; resolves once it listens. */
export function startSimProcess(config: Record<string, unknown>): Promise<SimProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-simproc-'));
  const file = join(dir, 'sim.json');
  writeFileSync(file, JSON.stringify(config));
  const child: ChildProcess = spawn(process.execPath, [CLI_PATH, 'sim', '--config', file, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`simulator did not start: ${out}`)), 15000);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1]!,
          pid: child.pid!,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}: ${out}`)));
  });
}

/**
 * Starts one simulator process per named config before the calling file's tests and stops them
 * all after; the returned object holds them by name once the tests run.
 */
export function simProcessesForFile<K extends string>(configs: Record<K, Record<string, unknown>>): Record<K, SimProcess> {
  const handles = {} as Record<K, SimProcess>;
  before(async () => {
    for (const name of Object.keys(configs) as K[]) handles[name] = await startSimProcess(configs[name]);
  });
  after(async () => {
    for (const handle of Object.values<SimProcess>(handles)) await handle.stop();
  });
  return handles;
}
