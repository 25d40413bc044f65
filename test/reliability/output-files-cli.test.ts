/**
 * No file is overwritten or lost by accident, as a user meets it: every file a command will write
 * is checked before anything is sent (a counting server proves it: no connection, no request),
 * a journal never replaces an existing file, an existing result is replaced atomically, and a
 * journal whose disk fails leaves the run and its result intact, naming what the journal lacks.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { runCli, spawnCli, type CliRun } from '../helpers/cli.js';

/** Answers `/v1/models` with one model and 404 to everything else, counting what reaches it. */
interface CountingServer {
  url: string;
  connections: number;
  requests: string[];
}

let counting: CountingServer & { server: Server };
let sim: SimHandle;
const root = mkdtempSync(join(tmpdir(), 'servebench-files-'));

before(async () => {
  const server = createServer((req, res) => {
    counting.requests.push(`${req.method ?? ''} ${req.url ?? ''}`);
    if (req.url === '/v1/models') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data: [{ id: 'm', max_model_len: 4096 }] }));
    } else res.writeHead(404).end('{}');
  });
  server.on('connection', () => counting.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  counting = {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    connections: 0,
    requests: [],
  };
  sim = await startSim({ max_model_len: 4096, prefill_tok_s: 200000, decode_step_ms: 1 });
});
after(async () => {
  await new Promise<void>((resolve) => counting.server.close(() => resolve()));
  await sim.close();
  rmSync(root, { recursive: true, force: true });
});

function freshDir(): string {
  return mkdtempSync(join(root, 'case-'));
}

const SMALL = ['--requests', '2', '--ctx-tokens', '128', '--max-tokens', '2', '--tokenizer', 'chars:3.0', '--quiet'];

/** Runs the CLI against the counting server and asserts a one-line refusal (exit 2) and that nothing reached the server. */
async function refusedBeforeAnyRequest(args: string[], expected: RegExp, cwd?: string): Promise<CliRun> {
  const connectionsBefore = counting.connections;
  const requestsBefore = counting.requests.length;
  const run = await runCli(
    args.includes('--base-url') || args[0] !== 'run' ? args : [...args, '--base-url', counting.url],
    cwd === undefined ? {} : { cwd },
  );
  assert.equal(run.code, 2, `${args.join(' ')}\n${run.stderr}`);
  assert.equal(run.stderr.split('\n').filter((l) => l !== '').length, 1, `one line: ${run.stderr}`);
  assert.match(run.stderr.trim(), expected);
  assert.deepEqual(counting.requests.slice(requestsBefore), [], 'no request reached the server');
  assert.equal(counting.connections - connectionsBefore, 0, 'no connection was opened');
  return run;
}

test('run --journal over an existing file is refused before any request, and the file is untouched', async () => {
  const dir = freshDir();
  const precious = join(dir, 'notes.txt');
  writeFileSync(precious, 'keep me\n');
  await refusedBeforeAnyRequest(
    ['run', ...SMALL, '--journal', precious, '--output', join(dir, 'r.json')],
    /^servebench run: --journal \S+notes\.txt: already exists; a journal is never overwritten or appended to/,
  );
  assert.equal(readFileSync(precious, 'utf8'), 'keep me\n');
  assert.ok(!existsSync(join(dir, 'r.json')));
});

test('run --journal X --output X and --report X --output X are refused before any request', async () => {
  const dir = freshDir();
  const same = join(dir, 'same.json');
  await refusedBeforeAnyRequest(
    ['run', ...SMALL, '--journal', same, '--output', same],
    /^servebench run: --output and --journal are the same file \(\S+same\.json\)/,
  );
  await refusedBeforeAnyRequest(
    ['run', ...SMALL, '--report', same, '--output', same],
    /^servebench run: --output and --report are the same file \(\S+same\.json\)/,
  );
  // Named differently: through a relative path from another working directory.
  mkdirSync(join(dir, 'sub'));
  await refusedBeforeAnyRequest(
    ['run', ...SMALL, '--report', '../same.json', '--output', same],
    /^servebench run: --output and --report are the same file/,
    join(dir, 'sub'),
  );
  assert.deepEqual(readdirSync(dir), ['sub']);
});

test('run --journal in a directory that does not exist is refused before any request (it was exit 3 after probing)', async () => {
  const dir = freshDir();
  await refusedBeforeAnyRequest(
    ['run', ...SMALL, '--journal', '/nonexistent/dir/j.jsonl', '--output', join(dir, 'r.json')],
    /^servebench run: --journal \/nonexistent\/dir\/j\.jsonl: parent directory \/nonexistent\/dir does not exist$/,
  );
});

test('an input of the run is never one of its outputs: --dataset and --api-key-file', async () => {
  const dir = freshDir();
  const dataset = join(dir, 'prompts.jsonl');
  writeFileSync(dataset, '{"prompt": "hello"}\n');
  await refusedBeforeAnyRequest(
    [
      'run',
      '--requests',
      '2',
      '--max-tokens',
      '2',
      '--tokenizer',
      'chars:3.0',
      '--quiet',
      '--dataset',
      dataset,
      '--output',
      dataset,
    ],
    /^servebench run: --output \S+prompts\.jsonl: is the --dataset input \(\S+prompts\.jsonl\); refusing to overwrite an input$/,
  );
  linkSync(dataset, join(dir, 'hard-link.jsonl'));
  await refusedBeforeAnyRequest(
    [
      'run',
      '--requests',
      '2',
      '--max-tokens',
      '2',
      '--tokenizer',
      'chars:3.0',
      '--quiet',
      '--dataset',
      dataset,
      '--output',
      join(dir, 'r.json'),
      '--report',
      join(dir, 'hard-link.jsonl'),
    ],
    /^servebench run: --report \S+hard-link\.jsonl: is the --dataset input/,
  );
  assert.equal(readFileSync(dataset, 'utf8'), '{"prompt": "hello"}\n');
  const keyFile = join(dir, 'key.txt');
  writeFileSync(keyFile, 'sk-test-key\n', { mode: 0o600 });
  await refusedBeforeAnyRequest(
    ['run', ...SMALL, '--api-key-file', keyFile, '--journal', keyFile, '--output', join(dir, 'r.json')],
    /^servebench run: --journal \S+key\.txt: is the --api-key-file input/,
  );
  assert.equal(readFileSync(keyFile, 'utf8'), 'sk-test-key\n');
});

test('an output that is a directory or a FIFO, and a journal that is a FIFO, are refused before any request', async () => {
  const dir = freshDir();
  mkdirSync(join(dir, 'adir'));
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  await refusedBeforeAnyRequest(
    ['run', ...SMALL, '--output', join(dir, 'r.json'), '--journal', join(dir, 'fifo')],
    /^servebench run: --journal \S+fifo: is a FIFO, not a regular file$/,
  );
  await refusedBeforeAnyRequest(
    ['run', ...SMALL, '--output', join(dir, 'adir')],
    /^servebench run: --output \S+adir: is a directory, not a regular file$/,
  );
  await refusedBeforeAnyRequest(
    ['run', ...SMALL, '--output', join(dir, 'fifo')],
    /^servebench run: --output \S+fifo: is a FIFO, not a regular file$/,
  );
  assert.ok(statSync(join(dir, 'fifo')).isFIFO());
});

test('sweep: a --report that is one of the points is refused before any request', async () => {
  const dir = freshDir();
  await refusedBeforeAnyRequest(
    [
      'sweep',
      '--concurrency',
      '1,2',
      ...SMALL,
      '--base-url',
      counting.url,
      '--output-dir',
      dir,
      '--report',
      join(dir, 'c2.json'),
    ],
    /^servebench sweep: the point result and --report are the same file \(\S+c2\.json\)/,
  );
  assert.deepEqual(readdirSync(dir), []);
  const fresh = join(dir, 'not-yet');
  await refusedBeforeAnyRequest(
    [
      'sweep',
      '--concurrency',
      '1',
      ...SMALL,
      '--base-url',
      counting.url,
      '--output-dir',
      fresh,
      '--report',
      join(fresh, 'sweep.json'),
    ],
    /^servebench sweep: the sweep summary and --report are the same file/,
  );
  assert.ok(!existsSync(fresh), 'the output directory it created is removed again');
});

/** A real run's result and journal, for the commands that read them. */
async function simRun(
  dir: string,
  extra: string[] = [],
  env?: NodeJS.ProcessEnv,
): Promise<{ run: CliRun; output: string }> {
  const output = join(dir, 'r.json');
  // A fault set by environment variable is read by the journal module when it loads: its own process.
  const run = await (env === undefined ? runCli : spawnCli)(
    [
      'run',
      '--base-url',
      sim.url,
      '--requests',
      '6',
      '--concurrency',
      '1',
      '--ctx-tokens',
      '128',
      '--max-tokens',
      '4',
      '--output',
      output,
      ...extra,
    ],
    env === undefined ? {} : { env },
  );
  return { run, output };
}

test('rebuild J --output J and report R --html R are refused, leaving J and R untouched', async () => {
  const dir = freshDir();
  const { run, output } = await simRun(dir, ['--quiet']);
  assert.equal(run.code, 0, run.stderr);
  const journal = join(dir, 'r.journal.jsonl');
  const journalText = readFileSync(journal, 'utf8');
  const resultText = readFileSync(output, 'utf8');
  await refusedBeforeAnyRequest(
    ['rebuild', journal, '--output', journal],
    /^servebench rebuild: --output \S+r\.journal\.jsonl: is the journal input \(\S+r\.journal\.jsonl\); refusing to overwrite an input$/,
  );
  assert.equal(readFileSync(journal, 'utf8'), journalText);
  await refusedBeforeAnyRequest(
    ['report', output, '--html', output],
    /^servebench report: --html \S+r\.json: is the result input/,
  );
  await refusedBeforeAnyRequest(
    ['report', output, '--html', join(dir, 'x.out'), '--csv', join(dir, 'x.out')],
    /^servebench report: --html and --csv are the same file/,
  );
  assert.equal(readFileSync(output, 'utf8'), resultText);
});

test('an existing result is replaced atomically (a new file renamed over it); running again to the same --output keeps the earlier journal', async () => {
  const dir = freshDir();
  const output = join(dir, 'r.json');
  writeFileSync(output, 'old result\n');
  linkSync(output, join(dir, 'old-name.json'));
  const before = statSync(output).ino;
  const first = await simRun(dir, ['--quiet']);
  assert.equal(first.run.code, 0, first.run.stderr);
  assert.notEqual(statSync(output).ino, before, 'a new file took the name');
  assert.equal(readFileSync(join(dir, 'old-name.json'), 'utf8'), 'old result\n', 'the old file was never written into');
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    completed: number;
    servebench: { journal: Record<string, unknown> };
  };
  assert.equal(result.completed, 6);
  assert.deepEqual(result.servebench.journal, {
    path: join(dir, 'r.journal.jsonl'),
    complete: true,
    error: null,
    header_written: true,
    requests_written: 6,
    missing_requests: [],
    end_written: true,
  });
  const journalText = readFileSync(join(dir, 'r.journal.jsonl'), 'utf8');
  const second = await simRun(dir, []);
  assert.equal(second.run.code, 0, second.run.stderr);
  assert.match(second.run.stdout, /result written to \S+r\.json \(journal \S+r-2\.journal\.jsonl\)/);
  assert.equal(readFileSync(join(dir, 'r.journal.jsonl'), 'utf8'), journalText, "the first run's journal is untouched");
  const again = JSON.parse(readFileSync(output, 'utf8')) as {
    servebench: { journal: { path: string; complete: boolean } };
  };
  assert.deepEqual(
    [again.servebench.journal.path, again.servebench.journal.complete],
    [join(dir, 'r-2.journal.jsonl'), true],
  );
});

test('a journal that cannot be written no longer kills the run: the result is written and it and the console name the missing requests', async () => {
  const dir = freshDir();
  // Frame 4 of the journal (the third request, written a frame a request) fails halfway with EIO.
  const { run, output } = await simRun(dir, ['--quiet'], {
    ...process.env,
    SERVEBENCH_TEST_JOURNAL_FAULT: '4',
    SERVEBENCH_TEST_JOURNAL_BATCH: '1',
  });
  assert.equal(run.code, 0, run.stderr);
  const journal = join(dir, 'r.journal.jsonl');
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    completed: number;
    servebench: { journal: Record<string, unknown> };
  };
  assert.equal(result.completed, 6, 'every request is in the result');
  assert.deepEqual(result.servebench.journal, {
    path: journal,
    complete: false,
    error: 'EIO: i/o error, write (SERVEBENCH_TEST_JOURNAL_FAULT)',
    header_written: true,
    requests_written: 2,
    missing_requests: [2, 3, 4, 5],
    end_written: false,
  });
  const warnings = run.stderr.split('\n').filter((l) => l.startsWith('warning: '));
  assert.deepEqual(warnings, [
    `warning: the journal ${journal} could not be written (EIO: i/o error, write (SERVEBENCH_TEST_JOURNAL_FAULT)); the run goes on without it`,
    `warning: the journal ${journal} could not be written (EIO: i/o error, write (SERVEBENCH_TEST_JOURNAL_FAULT)): it lacks 4 requests (index 2-5), its end line; the result file is complete and names them (servebench.journal)`,
  ]);
  assert.equal((await runCli(['validate', output])).code, 0);
  // What reached the journal still rebuilds: the half-written line is ignored.
  const rebuild = await runCli(['rebuild', journal]);
  assert.equal(rebuild.code, 0, rebuild.stderr);
  assert.match(rebuild.stderr, /frame 4 \(byte \d+\) was cut short/);
  assert.match(rebuild.stdout, /result rebuilt from 2 journaled requests/);
});
