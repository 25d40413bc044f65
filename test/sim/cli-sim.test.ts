/**
 * `servebench sim`: flag and config errors are one-line typed errors; the server runs until
 * SIGINT/SIGTERM and then resolves 0 (checked in a child process, which receives the signal).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { CliIO } from '../../src/cli/io.js';
import { simCommand } from '../../src/cli/commands/sim.js';
import { InputFileError, UsageError } from '../../src/util/errors.js';

const modulePath = fileURLToPath(new URL('../../src/cli/commands/sim.js', import.meta.url));

function io(): CliIO & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (s) => out.push(s),
    stderr: (s) => err.push(s),
    env: {},
    cwd: process.cwd(),
    isTTY: false,
  };
}

/** Run the command in a child process; resolve with its first stdout line, then signal it. */
function runChild(
  args: string[],
  signal: NodeJS.Signals,
): Promise<{ line: string; code: number | null; stderr: string; health: number }> {
  const script = `
    const { simCommand } = await import(${JSON.stringify(modulePath)});
    const code = await simCommand(JSON.parse(process.argv[1]), {
      stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s),
      env: process.env, cwd: process.cwd(), isTTY: false,
    });
    process.exitCode = code;`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(args)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    let line = '';
    let health = 0;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (line !== '' || !stdout.includes('\n')) return;
      line = stdout.split('\n')[0] ?? '';
      const url = /listening on (\S+)/.exec(line)?.[1] ?? '';
      // A failed health check fails the test (not the process, as a rejected listener would).
      fetch(`${url}/models`).then(
        (response) => {
          health = response.status;
          child.kill(signal);
        },
        (error: unknown) => {
          child.kill(signal);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ line, code, stderr, health }));
  });
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

  it('--help prints usage and returns 0', async () => {
    const out = io();
    assert.equal(await simCommand(['--help'], out), 0);
    assert.match(out.out.join(''), /usage: servebench sim/);
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`prints the listening line, serves, and exits 0 on ${signal}`, async () => {
      const file = join(dir, 'sim.json');
      await writeFile(file, JSON.stringify({ model: 'from-file', decode_step_ms: 1 }));
      const r = await runChild(['--config', file, '--port', '0', '--seed', '9'], signal);
      assert.match(r.line, /^servebench sim listening on http:\/\/127\.0\.0\.1:\d+\/v1 \(model from-file\)$/);
      assert.equal(r.health, 200);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`${signal} received, closed`));
    });
  }
});
