/**
 * `servebench sim`: flag and config errors are one-line typed errors; the server runs until
 * SIGINT/SIGTERM and then resolves 0 (in process: the test delivers the signal through the I/O).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { InterruptSignal } from '../../src/cli/io.js';
import { runCli, testIO, type TestIO } from '../helpers/cli.js';
import { simCommand } from '../../src/cli/commands/sim.js';
import { InputFileError, UsageError } from '../../src/util/errors.js';

function io(): TestIO {
  return testIO({ env: {} });
}

/** Runs the command in process; once it prints its first line, checks /models, then signals it. */
async function runUntilSignal(
  args: string[],
  signal: InterruptSignal,
): Promise<{ line: string; code: number; stderr: string; health: number; subscribers: number }> {
  let line = '';
  let health = 0;
  const health$: { checked: Promise<void> | null } = { checked: null };
  const own: TestIO = testIO({
    env: {},
    onOutput: () => {
      const text = own.out.join('');
      if (health$.checked !== null || !text.includes('\n')) return;
      line = text.split('\n')[0] ?? '';
      const url = /listening on (\S+)/.exec(line)?.[1] ?? '';
      health$.checked = fetch(`${url}/models`)
        .then((response) => {
          health = response.status;
        })
        .finally(() => own.signal(signal));
    },
  });
  const code = await simCommand(args, own);
  await health$.checked;
  return { line, code, stderr: own.err.join(''), health, subscribers: own.subscribers() };
}

describe('servebench sim command', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sim-cli-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('rejects bad flags with one-line UsageErrors', async () => {
    for (const [argv, pattern] of [
      [['--port', 'abc'], /--port must be an integer from 0 to 65535, got 'abc'/],
      [['--port', '70000'], /--port must be/],
      [['--seed=-1'], /--seed must be an integer/],
      [['--seed', '-1'], /'--seed' argument is ambiguous/],
      [['--seed', '1.5'], /--seed must be an integer/],
      [['--bogus'], /Unknown option '--bogus'/],
      [['extra'], /positional/i],
      [['--host', ''], /--host must not be empty/],
    ] as const) {
      await assert.rejects(simCommand([...argv], io()), (err: unknown) => {
        assert.ok(err instanceof UsageError, String(err));
        assert.ok(!err.message.includes('\n'));
        assert.match(err.message, pattern);
        return true;
      });
    }
  });

  it('rejects a bad config file with an InputFileError naming file and path', async () => {
    const file = join(dir, 'bad.toml');
    await writeFile(file, 'max_num_seqs = 0\n');
    await assert.rejects(simCommand(['--config', file], io()), (err: unknown) => {
      assert.ok(err instanceof InputFileError);
      assert.match(err.message, /bad\.toml: max_num_seqs: /);
      return true;
    });
  });

  it('--help prints usage and returns 0 (answered by main); the command itself refuses it', async () => {
    const help = await runCli(['sim', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /usage: servebench sim/);
    await assert.rejects(simCommand(['--help'], io()), UsageError);
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`prints the listening line, serves, and exits 0 on ${signal}`, async () => {
      const file = join(dir, 'sim.json');
      await writeFile(file, JSON.stringify({ model: 'from-file', decode_step_ms: 1 }));
      const r = await runUntilSignal(['--config', file, '--port', '0', '--seed', '9'], signal);
      assert.match(r.line, /^servebench sim listening on http:\/\/127\.0\.0\.1:\d+\/v1 \(model from-file\)$/);
      assert.equal(r.health, 200);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`${signal} received, closed`));
      assert.equal(r.subscribers, 0, 'the command stops listening for signals');
    });
  }
});
