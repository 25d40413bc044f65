/**
 * The shard flags' combinations that cannot be honoured are refused in one line, exit 2, before
 * anything starts (no simulator, no request, no file).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-shard-flags-'));

const CASES: [string[], RegExp][] = [
  [['--rendezvous', 'redis://127.0.0.1:6379/x'], /^servebench run: --rendezvous applies only with --shard I\/N$/],
  [['--start-at', '1'], /^servebench run: --start-at applies only with --shard I\/N$/],
  [['--shard', '0/2'], /--shard needs --output FILE/],
  [['--shard', '0/2', '--shards', '2', '--output', 'x.ndjson'], /--shard and --shards cannot be given together/],
  [['--shard', '0/2', '--output', 'x.ndjson', '--report', 'r.html'], /--report does not apply with --shard/],
  [['--shard', '0/2', '--output', 'x.ndjson', '--json'], /--json does not apply with --shard/],
  [
    ['--shard', '0/2', '--output', 'x.ndjson', '--rendezvous', 'redis://h:1/n', '--start-at', '1'],
    /--rendezvous and --start-at cannot be given together/,
  ],
  [['--shard', '2/2', '--output', 'x.ndjson'], /--shard 2\/2: the shard index 2 must be 0 to 1/],
  [['--shard', 'auto/2', '--output', 'x.ndjson'], /JOB_COMPLETION_INDEX is unset/],
  [['--shard', '0/2', '--output', 'x.ndjson', '--rendezvous', 'http://h:1/n'], /^servebench run: --rendezvous /],
  [['--shard', '0/2', '--output', 'x.ndjson', '--start-at', 'tomorrow'], /^servebench run: --start-at /],
  [['--shards', '2', '--journal', 'j.jsonl'], /--journal does not apply with --shards/],
  [['--shards', '2', '--start-at', '1'], /--start-at does not apply with --shards/],
];

test('impossible shard flag combinations are one line, exit 2, and nothing is written', async () => {
  for (const [args, pattern] of CASES) {
    const env = { ...process.env };
    delete env['JOB_COMPLETION_INDEX'];
    const run = await runCli(['run', ...args], { cwd: dir, env });
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    const lines = run.stderr.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, `${args.join(' ')}: ${run.stderr}`);
    assert.match(lines[0]!, pattern, args.join(' '));
    assert.equal(run.stdout, '', args.join(' '));
  }
  assert.deepEqual(readdirSync(dir), [], 'no file was written');
});
