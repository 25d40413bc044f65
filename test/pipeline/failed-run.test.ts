/**
 * A run that fails part-way leaves nothing of its self-check behind: the stall meter's 1 ms timer
 * and the thread-times file it holds open (util/thread-times.ts) would otherwise outlive the run
 * in a program that goes on (the library's users, a sweep).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags } from '../../src/cli/parse.js';
import { RUN_FLAGS } from '../../src/cli/options.js';
import { resolveRunConfig } from '../../src/config/run-config.js';
import { runBenchmark } from '../../src/pipeline/benchmark.js';
import { JournalOutput } from '../../src/pipeline/journal-output.js';
import { startSim } from '../../src/sim/server.js';

/** This process's open files under /proc that name a thread's schedstat or stat. */
function openThreadFiles(): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return /\/task\/\d+\/(schedstat|stat)$/.test(target) ? [target] : [];
    } catch {
      return []; // closed meanwhile (readdir's own descriptor)
    }
  });
}

test(
  "a run that fails part-way closes its self-check's thread-times file",
  { skip: process.platform !== 'linux' ? 'reads /proc/self/fd' : false },
  async () => {
    const sim = await startSim({ decode_step_ms: 1, prefill_tok_s: 2e6 });
    const dir = mkdtempSync(join(tmpdir(), 'servebench-failed-run-'));
    try {
      const argv = [
        '--requests',
        '20',
        '--concurrency',
        '2',
        '--max-tokens',
        '4',
        '--ctx-tokens',
        '200',
        '--shared-prefix-tokens',
        '0',
        '--tokenizer',
        'chars:3.0',
        '--model',
        'servebench-sim',
        '--max-model-len',
        '32768',
      ];
      const parsed = parseFlags(argv, RUN_FLAGS);
      const config = resolveRunConfig(parsed.values, {}, dir, parsed.given);
      const before = openThreadFiles();
      let threw = false;
      try {
        await runBenchmark(
          config,
          { baseUrl: sim.url, apiKey: null, embeddedSimulator: false },
          {
            // A caller whose output breaks on the first finished request fails the run part-way.
            outputs: [
              new JournalOutput(join(dir, 'run.journal.jsonl')),
              {
                start: () => undefined,
                record: () => {
                  throw new Error('the caller broke');
                },
                finish: async () => undefined,
              },
            ],
          },
        );
      } catch {
        threw = true;
      }
      assert.equal(threw, true, 'the run failed');
      assert.deepEqual(openThreadFiles(), before);
    } finally {
      await sim.close();
    }
  },
);
