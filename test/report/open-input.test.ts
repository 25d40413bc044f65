/**
 * openInput (src/report/open-input.ts): every kind of result-like file is told from its content
 * (the vendored fixtures for results and other tools' files, small hand-made files for the kinds
 * servebench writes itself), and every refusal is one InputFileError line naming the file: a kind
 * the caller does not read (naming what it reads), a file over the size limit, and garbage.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  InputRefusedError,
  MAX_JOURNAL_BYTES,
  openInput,
  type InputKind,
  type RefusalReason,
} from '../../src/report/open-input.js';
import { MAX_RESULT_BYTES } from '../../src/result/io.js';
import { InputFileError } from '../../src/util/errors.js';
import { fixtureFiles, seedFile } from '../helpers/fixtures.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-open-input-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ALL: [InputKind, ...InputKind[]] = ['result', 'sweep', 'peer', 'journal', 'plan', 'shard'];
const PEERS = join(REPO_ROOT, 'test', 'fixtures', 'peers');

function write(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const SWEEP = write(
  'sweep.json',
  JSON.stringify({
    schema: 'servebench.sweep/v1',
    swept: 'concurrency',
    slo: null,
    points: [],
    knee_load: null,
    knee_rule: 'none',
    slo_limit_load: null,
    slo_note: null,
  }),
);
const JOURNAL = write(
  'run.journal.jsonl',
  [
    JSON.stringify({ type: 'header', schema: 'servebench.journal/v1', run: { meta: {} } }),
    JSON.stringify({ type: 'end', wall_s: 1, finished_at: '2026-01-01T00:00:01Z', interrupted: false }),
    '',
  ].join('\n'),
);
const PLAN_TEXT = JSON.stringify({ schema: 'servebench.run-plan/v1', requests: [] });
const PLAN = write('plan.json', PLAN_TEXT);
const PLAN_GZ = write('plan.json.gz', gzipSync(PLAN_TEXT));
const SHARD = write(
  'shard-0.ndjson',
  `${JSON.stringify({ type: 'header', schema: 'servebench.shard/v1', shard: { index: 0, count: 2 } })}\n{"type":"end"}\n`,
);

/** The refusal `read` throws: one line naming `file`, of `reason`. */
async function refusal(read: Promise<unknown>, file: string, reason: RefusalReason): Promise<string> {
  const error = await read.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof InputRefusedError, `not an InputRefusedError: ${String(error)}`);
  assert.ok(error instanceof InputFileError, 'an InputFileError (exit 2, one line from main.ts)');
  assert.ok(error.file.startsWith(file), `${error.file} names ${file}`); // a line-per-run file: file:line
  assert.ok(!error.message.includes('\n'), `one line: ${error.message}`);
  assert.equal(error.reason, reason, error.message);
  return error.problem;
}

test('servebench results of every era are told from their content', async () => {
  for (const file of [seedFile(), ...fixtureFiles().slice(0, 5)]) {
    const read = await openInput(file, { accept: ALL });
    assert.equal(read.kind, 'result', file);
    assert.equal(read.path, file);
  }
});

test("every vendored file of another tool is told another tool's file", async () => {
  const files = readdirSync(PEERS, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(join(PEERS, d.name)).map((name) => join(PEERS, d.name, name)))
    .filter((file) => !file.endsWith('experiment_metadata.json')); // genai-bench's note beside its runs, not a run
  assert.ok(files.length >= 15);
  for (const file of files) {
    const read = await openInput(file, { accept: ALL });
    assert.equal(read.kind, 'peer', file);
    if (read.kind === 'peer') assert.ok(read.runs.length >= 1, file);
  }
});

test('sweep summaries, journals, plans (gzipped too) and shard files are told by their schema id', async () => {
  const sweep = await openInput(SWEEP, { accept: ALL });
  assert.equal(sweep.kind, 'sweep');
  const journal = await openInput(JOURNAL, { accept: ALL });
  assert.equal(journal.kind, 'journal');
  if (journal.kind === 'journal') assert.equal(journal.journal.end?.wall_s, 1);
  for (const plan of [PLAN, PLAN_GZ]) {
    const read = await openInput(plan, { accept: ALL });
    assert.equal(read.kind, 'plan', plan);
    if (read.kind === 'plan') assert.deepEqual(read.value['requests'], []);
  }
  const shard = await openInput(SHARD, { accept: ['shard'] });
  assert.equal(shard.kind, 'shard');
  assert.equal(shard.header['schema'], 'servebench.shard/v1');
  assert.equal((await openInput(SHARD, { accept: ALL })).kind, 'shard');
});

test('a relative path is read from cwd and named as given', async () => {
  const read = await openInput(basename(SWEEP), { accept: ['sweep'], cwd: dir });
  assert.equal(read.file, basename(SWEEP));
  assert.equal(read.path, SWEEP);
  await refusal(openInput('missing.json', { accept: ['result'], cwd: dir }), 'missing.json', 'unreadable');
});

test('a kind the caller does not read: one line naming what it is and what the caller reads', async () => {
  const cases: [string, readonly [InputKind, ...InputKind[]], RegExp][] = [
    [JOURNAL, ['result', 'peer'], /^is a run journal, not a servebench result file or another tool's result file$/],
    [SWEEP, ['result'], /^is a sweep summary, not a servebench result file$/],
    [PLAN, ['result', 'sweep', 'peer'], /^is a run plan, not a servebench result file, a sweep summary or/],
    [PLAN_GZ, ['journal'], /^is a run plan, not a run journal$/],
    [SHARD, ['result', 'peer'], /^is a shard file, not/],
    [seedFile(), ['journal'], /^is a servebench result file, not a run journal$/],
    [join(PEERS, 'llmperf', 'yi34b_vllm_c1_550_150_summary.json'), ['result'], /^is another tool's result file, not/],
    [JOURNAL, ['shard'], /^is a run journal, not a shard file \(hint\)$/],
  ];
  for (const [file, accept, problem] of cases) {
    const hints = accept[0] === 'shard' ? { journal: 'hint' } : {};
    const got = await refusal(openInput(file, { accept, hints }), file, 'other-kind');
    assert.match(got, problem, file);
  }
});

test('a file over the limit of the kinds accepted is refused by its size, before it is read', async () => {
  const big = write('big.json', '');
  truncateSync(big, MAX_RESULT_BYTES + 1); // sparse: costs no disk
  const problem = await refusal(openInput(big, { accept: ['result', 'peer'] }), big, 'unreadable');
  assert.equal(problem, `is ${MAX_RESULT_BYTES + 1} bytes, over the 64 MiB limit for result files`);
  const huge = write('huge.journal.jsonl', '');
  truncateSync(huge, MAX_JOURNAL_BYTES + 1);
  assert.match(
    await refusal(openInput(huge, { accept: ['journal'] }), huge, 'unreadable'),
    /over the 500 MiB limit for journal files$/,
  );
});

test('garbage, broken JSON and an invalid result: one line each, with the reason as data', async () => {
  const garbage = write('garbage.json', 'this is not JSON {\n\u0000\u0001 at all\n');
  await refusal(openInput(garbage, { accept: ['result', 'peer'] }), garbage, 'not-json');
  await refusal(openInput(garbage, { accept: ['journal'] }), garbage, 'not-json');
  await refusal(openInput(garbage, { accept: ['shard'] }), garbage, 'not-json');
  const other = write('other.json', '{"schema": "something/else"}');
  assert.match(await refusal(openInput(other, { accept: ['shard'] }), other, 'unknown'), /schema "something\/else"/);
  await refusal(openInput(other, { accept: ['result', 'peer'] }), other, 'unknown');
  const invalid = write('invalid.json', '{"schema": "anvil-serving.benchmark/v1", "requests": "many"}');
  await refusal(openInput(invalid, { accept: ['result'] }), invalid, 'invalid');
  const latin1 = write('latin1.json', Buffer.from([0x7b, 0xe9, 0x7d]));
  assert.match(await refusal(openInput(latin1, { accept: ['result'] }), latin1, 'unreadable'), /not valid UTF-8/);
  await refusal(openInput(dir, { accept: ['result'] }), dir, 'unreadable');
  await refusal(openInput(dir, { accept: ['shard'] }), dir, 'unreadable');
});

test('each command that reads result-like files refuses a kind it does not read in one line, exit 2', async () => {
  const out = join(dir, 'out.json');
  const cases: [string[], string][] = [
    [['show', JOURNAL], `is a run journal, not a servebench result file or another tool's result file`],
    [['compare', seedFile(), PLAN], `is a run plan, not a servebench result file or another tool's result file`],
    [['report', SHARD], `is a shard file, not a servebench result file, a sweep summary or another tool's result file`],
    [['validate', SWEEP], 'is a sweep summary, not a servebench result file'],
    [['rebuild', SWEEP, '--output', out], 'is a sweep summary, not a run journal'],
    [['merge', JOURNAL, '--output', out], 'is a run journal, not a shard file'],
  ];
  for (const [argv, problem] of cases) {
    const run = await runCli(argv);
    const file = argv.find((arg) => arg.startsWith(dir))!;
    assert.equal(run.code, 2, argv.join(' '));
    assert.match(run.stderr, new RegExp(`^servebench ${argv[0]}: ${file}: ${problem}( \\(.*\\))?\\n$`), run.stderr);
  }
});
