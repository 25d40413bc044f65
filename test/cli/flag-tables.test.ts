/**
 * The flag tables are what the commands accept and what their help says: every command main.ts
 * dispatches has a table, and its `--help` names every flag of it (docs/cli.md is rendered from
 * the same tables, and test/docs-drift.test.ts keeps that file in step with them).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main.js';
import { COMMAND_SPECS, WITH_PLAN_RUN_FLAGS } from '../../src/cli/command-flags.js';
import { RUN_FLAGS } from '../../src/cli/options.js';
import { acceptedFlags } from '../../src/cli/args/spec.js';
import type { CliIO } from '../../src/cli/io.js';

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    env: {},
    cwd: process.cwd(),
    isTTY: false,
    onSignal: () => () => {},
    now: () => new Date(),
  };
  const code = await main(argv, io);
  return { code, out, err };
}

/** Command names as `servebench --help` lists them. */
export async function dispatchedCommands(): Promise<string[]> {
  const { out } = await cli(['--help']);
  return [...out.matchAll(/^ {2}(\w+) {2,}/gm)].map((m) => m[1]!);
}

test('every command main.ts dispatches has a flag table, and every table a command', async () => {
  const dispatched = await dispatchedCommands();
  assert.ok(dispatched.includes('run') && dispatched.includes('sim'), dispatched.join(', '));
  assert.deepEqual([...dispatched].sort(), COMMAND_SPECS.map((c) => c.name).sort());
});

for (const spec of COMMAND_SPECS) {
  test(`servebench ${spec.name} --help names every flag of its table`, async () => {
    const { code, out } = await cli([spec.name, '--help']);
    assert.equal(code, 0);
    assert.ok(out.includes(`usage: ${spec.usage}`), out);
    for (const flag of acceptedFlags(spec))
      assert.match(out, new RegExp(`--${flag.name}\\b`), `--${flag.name} missing from ${spec.name} --help`);
  });
}

test('a number outside its table range is refused with the range the docs show', async () => {
  const { code, err } = await cli(['run', '--requests', '20000001', '--dry-run']);
  assert.equal(code, 2);
  assert.equal(err, 'servebench run: --requests: 20000001 is out of range [1, 20000000]\n');
  const compare = await cli(['compare', '--seed', '4294967296', 'a.json', 'b.json']);
  assert.equal(compare.code, 2);
  assert.match(compare.err, /--seed: expected an integer in \[0, 4294967295\], got '4294967296'/);
});

test('run flags carry their kind: `run --plan` takes every kind but what the plan fixes, and only run flags have one', () => {
  const byRole = new Map<string, string[]>();
  for (const flag of RUN_FLAGS) {
    const role = flag.role ?? 'workload';
    byRole.set(role, [...(byRole.get(role) ?? []), flag.name]);
  }
  // Each kind names real flags (a kind no flag has would be a refusal that refuses nothing).
  assert.deepEqual([...byRole.keys()].sort(), [
    'console',
    'dry-run',
    'interrupt',
    'journal',
    'json',
    'live',
    'load-point',
    'plan-file',
    'records',
    'report',
    'result-file',
    'scrape',
    'shard',
    'shard-index',
    'target',
    'workload',
  ]);
  assert.deepEqual(byRole.get('load-point'), ['concurrency', 'rate']);
  const fixedByPlan = [...(byRole.get('workload') ?? []), ...(byRole.get('load-point') ?? []), 'dry-run'];
  assert.deepEqual(
    [...WITH_PLAN_RUN_FLAGS].sort(),
    RUN_FLAGS.map((f) => f.name)
      .filter((name) => !fixedByPlan.includes(name))
      .sort(),
  );
  for (const spec of COMMAND_SPECS.filter((each) => each.flags !== RUN_FLAGS))
    for (const flag of spec.flags) assert.equal(flag.role, undefined, `${spec.name} --${flag.name}`);
});
