/**
 * SIGINT/SIGTERM before the run proper starts, on real sockets (the command in process, the
 * signal delivered through its I/O as the process's handler would):
 * while `run` waits on a server that never answers (the `/models` probe, tokenize detection, a
 * calibration probe, connection warm-up) or sizes prompts, a signal ends it on its own with exit
 * 130, one line on stderr, no stack trace and no file (nothing was measured). What happens once
 * requests run (drain, a second signal cancels, partial result) is test/integration/load.test.ts.
 * No time bound is asserted: each run has the test's generous timeout to exit after the signal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import type { InterruptSignal } from '../../src/cli/io.js';
import { testIO } from '../helpers/cli.js';
import { startSilentServer } from '../helpers/silent-server.js';

/** Longest wait for a run to exit after the signal before the test gives up on it (and kills it). */
const EXIT_TIMEOUT_MS = 30_000;

interface Ended {
  code: number | null;
  /** True when the command had not returned {@link EXIT_TIMEOUT_MS} after the signal. */
  stillRunning: boolean;
  stdout: string;
  stderr: string;
  /** Files the run left in its (fresh, empty) working directory. */
  files: string[];
}

/** The run's stdout so far, and a wait for a line of it. */
interface Stdout {
  printed(pattern: RegExp): Promise<void>;
}

/**
 * Runs `servebench ...args` in process in an empty directory, sends `signal` through its I/O once
 * `ready` resolves, and waits for the command to return on its own; a command still running
 * {@link EXIT_TIMEOUT_MS} after the signal is reported as such by the assertions.
 */
async function interruptWhen(
  args: string[],
  signal: InterruptSignal,
  ready: (stdout: Stdout) => Promise<unknown>,
): Promise<Ended> {
  const cwd = mkdtempSync(join(tmpdir(), 'servebench-interrupt-'));
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  const io = testIO({
    cwd,
    onOutput: () => {
      const stdout = io.out.join('');
      for (const waiter of waiters.filter((w) => w.pattern.test(stdout))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
  });
  const output: Stdout = {
    printed: (pattern) =>
      pattern.test(io.out.join('')) ? Promise.resolve() : new Promise((resolve) => waiters.push({ pattern, resolve })),
  };
  let returned = false;
  let stuck: NodeJS.Timeout | undefined;
  const stillRunning = new Promise<'still running'>((resolve) => {
    void ready(output).then(() => {
      if (returned) return;
      io.signal(signal);
      stuck = setTimeout(() => resolve('still running'), EXIT_TIMEOUT_MS);
    });
  });
  const code = await Promise.race([main(args, io), stillRunning]);
  returned = true;
  clearTimeout(stuck);
  return {
    code: code === 'still running' ? null : code,
    stillRunning: code === 'still running',
    stdout: io.out.join(''),
    stderr: io.err.join(''),
    files: readdirSync(cwd),
  };
}

/** Exit 130 on its own (not killed), one line on stderr saying nothing was measured, no file written. */
function assertInterruptedBeforeStart(run: Ended): void {
  assert.equal(
    run.stillRunning,
    false,
    `still running ${EXIT_TIMEOUT_MS} ms after the signal: the run did not stop\n${run.stdout}${run.stderr}`,
  );
  assert.equal(run.code, 130, run.stderr);
  const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${run.stderr}`);
  assert.match(
    lines[0]!,
    /^servebench run: interrupted before the first measured request: nothing was measured, no result written$/,
  );
  assert.deepEqual(run.files, [], 'nothing was measured, so no result, journal or results/ directory');
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test(
    `${signal} while the /models probe waits on a server that never answers: exit 130, one line, no result`,
    { timeout: 60_000 },
    async () => {
      const server = await startSilentServer();
      try {
        const run = await interruptWhen(
          ['run', '--base-url', server.url, '--model', 'm', '--requests', '4'],
          signal,
          () => server.saw(/^GET \/v1\/models /),
        );
        assertInterruptedBeforeStart(run);
      } finally {
        await server.close();
      }
    },
  );
}

test(
  'SIGINT while detecting a tokenize endpoint that never answers: exit 130, one line, no result',
  { timeout: 60_000 },
  async () => {
    const server = await startSilentServer();
    try {
      const run = await interruptWhen(
        ['run', '--base-url', server.url, '--model', 'm', '--max-model-len', '4096', '--requests', '4'],
        'SIGINT',
        () => server.saw(/^POST \/tokenize /),
      );
      assertInterruptedBeforeStart(run);
    } finally {
      await server.close();
    }
  },
);

test(
  'SIGINT while a calibration probe (a chat request) waits on a server that never answers: exit 130, one line, no result',
  { timeout: 60_000 },
  async () => {
    // No tokenize endpoint (404), so calibration falls back to chat probes, which hang.
    const server = await startSilentServer(/^POST \/v1\/chat\/completions /);
    try {
      const run = await interruptWhen(
        ['run', '--base-url', server.url, '--model', 'm', '--max-model-len', '4096', '--requests', '4'],
        'SIGINT',
        () => server.saw(/^POST \/v1\/chat\/completions /),
      );
      assertInterruptedBeforeStart(run);
    } finally {
      await server.close();
    }
  },
);

for (const workers of [1, 2]) {
  test(
    `SIGINT while warming connections${workers > 1 ? ` in ${workers} stream workers` : ''} to a server that never answers: exit 130, one line, no result`,
    { timeout: 60_000 },
    async () => {
      const server = await startSilentServer();
      try {
        // Model and window given, no calibration, no metrics probe: the warm-up GET /models is the
        // first request.
        const args = [
          'run',
          '--base-url',
          server.url,
          '--model',
          'm',
          '--max-model-len',
          '4096',
          '--tokenizer',
          'chars:3.0',
          '--server-metrics',
          'off',
          '--requests',
          '4',
          '--concurrency',
          '2',
          '--workers',
          String(workers),
        ];
        const run = await interruptWhen(args, 'SIGINT', () => server.saw(/^GET \/v1\/models /));
        assertInterruptedBeforeStart(run);
      } finally {
        await server.close();
      }
    },
  );
}

test(
  'SIGINT while the baseline scrape of a /metrics that never answers is awaited: exit 130, one line, no result',
  { timeout: 60_000 },
  async () => {
    const server = await startSilentServer();
    try {
      // Model and window given, no calibration: the metrics probe (the baseline scrape, --server-metrics
      // auto) is the first request, sent before the first measured one.
      const args = ['run', '--base-url', server.url, '--model', 'm', '--max-model-len', '4096'];
      const run = await interruptWhen(
        [...args, '--tokenizer', 'chars:3.0', '--scrape-interval', '10', '--requests', '4'],
        'SIGINT',
        () => server.saw(/^GET \/metrics /),
      );
      assertInterruptedBeforeStart(run);
    } finally {
      await server.close();
    }
  },
);

test(
  'SIGINT while sizing 100,000 prompts against the built-in simulator (tokenize calls): exit 130, one line, no result',
  { timeout: 60_000 },
  async () => {
    const run = await interruptWhen(['run', '--requests', '100000', '--ctx-tokens', '256'], 'SIGINT', (stdout) =>
      stdout.printed(/^sizing prompts/m),
    );
    assertInterruptedBeforeStart(run);
  },
);

test(
  'SIGTERM while sizing 1,000,000 prompts at a fixed ratio (a CPU loop, no network): exit 130, one line, no result',
  { timeout: 60_000 },
  async () => {
    const run = await interruptWhen(
      ['run', '--requests', '1000000', '--ctx-tokens', '64', '--tokenizer', 'chars:3.0'],
      'SIGTERM',
      (stdout) => stdout.printed(/^sizing prompts/m),
    );
    assertInterruptedBeforeStart(run);
  },
);
