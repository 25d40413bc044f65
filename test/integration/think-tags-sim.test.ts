/**
 * `--reasoning-parser` end to end: `servebench run` (a child process) against the simulator
 * streaming its reasoning inside `content` as `<think>…</think>` (sim config
 * `reasoning_field: "think-tags"`, docs/simulator.md). With the default `auto` the thinking is
 * split off: the run is labelled capacity-v4-reasoning, TTFO comes before TTFT, and the result
 * says how many requests had think tags; with `none` the same stream is all content (capacity-v3)
 * and compare refuses to rank the two.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';

const N = 16;
const R = 5;
const REQUESTS = 6;
let sim: SimHandle;
const dir = mkdtempSync(join(tmpdir(), 'servebench-think-tags-'));

before(async () => {
  sim = await startSim({
    max_num_seqs: 8,
    prefill_tok_s: 20000,
    decode_step_ms: 4,
    decode_batch_slowdown: 0,
    reasoning_tokens: R,
    reasoning_field: 'think-tags',
  });
});

after(async () => {
  await sim.close();
});

type Row = Record<string, number | string | null>;

async function run(
  name: string,
  extra: string[],
): Promise<{ file: string; doc: Record<string, unknown>; stdout: string }> {
  const file = join(dir, `${name}.json`);
  const result = await runCli([
    'run',
    '--base-url',
    sim.url,
    '--requests',
    String(REQUESTS),
    '--concurrency',
    '2',
    '--ctx-tokens',
    '1024',
    '--shared-prefix-tokens',
    '0',
    '--max-tokens',
    String(N),
    '--ignore-eos',
    '--output',
    file,
    ...extra,
  ]);
  assert.equal(result.code, 0, `exit code; stderr: ${result.stderr}`);
  return { file, doc: JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>, stdout: result.stdout };
}

test('auto splits <think> reasoning off content: capacity-v4-reasoning, TTFO < TTFT, counted in the result', async () => {
  const { doc, stdout } = await run('auto', []);
  assert.equal(doc['measurement_protocol'], 'capacity-v4-reasoning');
  const servebench = doc['servebench'] as Record<string, unknown>;
  assert.deepEqual(servebench['reasoning_parser'], { setting: 'auto', think_tag_requests: REQUESTS });
  assert.equal((servebench['config'] as Record<string, unknown>)['reasoning_parser'], 'auto');
  assert.match(
    stdout,
    new RegExp(`reasoning: <think>…</think> split off the content in ${REQUESTS} of ${REQUESTS} requests`),
  );
  const rows = doc['request_timings'] as Row[];
  assert.equal(rows.length, REQUESTS);
  for (const row of rows) {
    assert.ok((row['ttft_ms'] as number) > (row['time_to_first_output_ms'] as number), 'TTFT after TTFO');
    // R thinking deltas (the first opens with <think>), and the first answer delta also closes the
    // thinking (`</think>\n\n` + answer text): one arrival counted in both.
    assert.equal(row['reasoning_chunks'], R + 1);
    assert.equal(row['content_chunks'], N - R);
    assert.equal(row['output_tokens'], N, "the server's usage, tags not counted apart");
  }
});

test('none counts the same stream as content (capacity-v3), and compare refuses to rank it against auto', async () => {
  const { file, doc } = await run('none', ['--reasoning-parser', 'none']);
  assert.equal(doc['measurement_protocol'], 'capacity-v3');
  const servebench = doc['servebench'] as Record<string, unknown>;
  assert.deepEqual(servebench['reasoning_parser'], { setting: 'none', think_tag_requests: 0 });
  for (const row of doc['request_timings'] as Row[]) {
    assert.equal(row['reasoning_chunks'], 0);
    assert.equal(row['content_chunks'], N);
    assert.equal(row['ttft_ms'], row['time_to_first_output_ms']);
  }
  const compare = await runCli(['compare', join(dir, 'auto.json'), file]);
  assert.equal(compare.code, 1, compare.stdout + compare.stderr);
  assert.match(compare.stdout + compare.stderr, /think_tags/);
});
