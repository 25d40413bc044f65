/**
 * A command loads what it runs (docs/architecture.md, "Loading"): `--version` loads a handful of
 * modules, and `run` against a server or the built-in simulator loads none of the packages of the
 * sharded run (ioredis), the live-metrics server (prom-client) or the peer readers (yaml,
 * csv-parse). The process is the subject here: each case starts `node dist/src/cli/main.js` with a
 * module hook that writes every file it loads, and the test reads that list.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI_PATH } from '../helpers/cli.js';
import { startSim, type SimHandle } from '../../src/sim/index.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-loaded-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A module hook (registered with --import) that appends each file: URL it loads to $LOADED_FILE. */
const HOOK = join(dir, 'hook.mjs');
writeFileSync(
  HOOK,
  [
    "import { register } from 'node:module';",
    `register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(
      [
        "import { appendFileSync } from 'node:fs';",
        'export async function load(url, context, next) {',
        "  if (url.startsWith('file:')) appendFileSync(process.env.LOADED_FILE, url + '\\n');",
        '  return next(url, context);',
        '}',
      ].join('\n'),
    )}));`,
  ].join('\n'),
);

/** The files `servebench ...args` loads (URLs), after checking it exited 0. */
async function loadedBy(args: string[], name: string): Promise<string[]> {
  const file = join(dir, `${name}.loaded`);
  writeFileSync(file, '');
  const child = spawn(process.execPath, ['--import', pathToFileURL(HOOK).href, CLI_PATH, ...args], {
    cwd: dir,
    env: { ...process.env, LOADED_FILE: file },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const [code] = (await once(child, 'close')) as [number | null];
  assert.equal(code, 0, stderr);
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

/** The npm packages among `urls`, by name. */
function packages(urls: readonly string[]): Set<string> {
  const names = urls.flatMap((url) => {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    return match === null ? [] : [match[1]!];
  });
  return new Set(names);
}

const HEAVY_ELSEWHERE = ['ioredis', 'prom-client', 'yaml', 'csv-parse'];

test('--version loads no package and only a few of servebench’s own modules', async () => {
  const loaded = await loadedBy(['--version'], 'version');
  assert.deepEqual([...packages(loaded)], []);
  assert.ok(loaded.length <= 10, `${loaded.length} modules:\n${loaded.join('\n')}`);
});

test('run against a server loads neither ioredis, prom-client, yaml nor csv-parse, nor the simulator', async () => {
  let sim: SimHandle | null = null;
  try {
    sim = await startSim({ port: 0, decode_step_ms: 1, prefill_tok_s: 1e6 });
    const loaded = await loadedBy(
      [
        'run',
        '--base-url',
        sim.url,
        '--requests',
        '4',
        '--max-tokens',
        '4',
        '--ctx-tokens',
        '64',
        '--quiet',
        '--output',
        join(dir, 'server.json'),
      ],
      'run-server',
    );
    const used = packages(loaded);
    for (const name of HEAVY_ELSEWHERE) assert.ok(!used.has(name), `run loaded ${name}`);
    assert.ok(used.has('undici'), 'the client itself is loaded');
    // The simulator's server and engine stay out (its config reader and seeded RNG are shared).
    const simulator = loaded.filter((url) => /\/src\/sim\/(server|engine|index)\.js$/.test(url));
    assert.deepEqual(simulator, [], 'the client process loads no simulator');
  } finally {
    await sim?.close();
  }
});

test('run against the built-in simulator loads neither ioredis, yaml nor csv-parse', async () => {
  const loaded = await loadedBy(
    ['run', '--requests', '4', '--max-tokens', '4', '--ctx-tokens', '64', '--quiet', '--output', join(dir, 'sim.json')],
    'run-sim',
  );
  const used = packages(loaded);
  for (const name of ['ioredis', 'yaml', 'csv-parse']) assert.ok(!used.has(name), `run loaded ${name}`);
  // The simulator runs in its own thread, which loads it (module hooks see every thread's loads).
  assert.ok(
    loaded.some((url) => url.endsWith('/src/sim/server.js')),
    'the embedded simulator is loaded',
  );
});
