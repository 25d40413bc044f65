/**
 * The soak run, in its own process (started by soak.slow.ts with --expose-gc, so memory readings
 * are the runner's alone and taken after full collections): 2,000 requests at concurrency 64
 * against a simulator process injecting a random fault into 10% of them. Prints one JSON line.
 *
 *   node --expose-gc dist/test/helpers/soak-child.js DIR
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFlags } from '../../src/cli/parse.js';
import { RUN_FLAGS } from '../../src/cli/options.js';
import { resolveRunConfig } from '../../src/config/run-config.js';
import { runBenchmark } from '../../src/pipeline/benchmark.js';
import { JournalOutput } from '../../src/pipeline/journal-output.js';
import { readJournalBytes } from '../../src/record/read-journal.js';
import { writeResultFile } from '../../src/result/io.js';
import { startSimProcess } from './sim-process.js';
import { SAMPLE_AT, SOAK_CONCURRENCY, SOAK_MIX, SOAK_REQUESTS } from './soak-plan.js';

interface Sample {
  done: number;
  heapUsedBytes: number;
  rssBytes: number;
  externalBytes: number;
  arrayBuffersBytes: number;
}

async function main(): Promise<void> {
  const dir = process.argv[2];
  const gc = (globalThis as { gc?: () => void }).gc;
  if (dir === undefined || gc === undefined) throw new Error('usage: node --expose-gc soak-child.js DIR');
  const problems: string[] = [];
  process.on('unhandledRejection', (reason) => problems.push(`unhandledRejection: ${String(reason)}`));
  process.on('uncaughtException', (error) => problems.push(`uncaughtException: ${String(error)}`));
  const sim = await startSimProcess({
    decode_step_ms: 2,
    decode_batch_slowdown: 0,
    prefill_tok_s: 2e6,
    max_num_seqs: 64,
    ground_truth_limit: 0,
    prefix_cache: { enabled: false },
    faults: `rate=0.1:mix=${SOAK_MIX}:seed=7`,
  });
  const samples: Sample[] = [];
  const started = process.hrtime.bigint();
  try {
    const argv = [
      '--requests',
      String(SOAK_REQUESTS),
      '--concurrency',
      String(SOAK_CONCURRENCY),
      '--max-tokens',
      '32',
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
      '--timeout',
      '2',
      '--request-timeout',
      '2',
    ];
    const parsed = parseFlags(argv, RUN_FLAGS);
    const config = resolveRunConfig(parsed.values, {}, dir, parsed.given);
    const journalPath = join(dir, 'soak.journal.jsonl');
    let done = 0;
    const outcome = await runBenchmark(
      config,
      { baseUrl: sim.url, apiKey: null, embeddedSimulator: false },
      {
        outputs: [
          new JournalOutput(journalPath),
          {
            start: () => undefined,
            record: () => {
              done++;
              if (!SAMPLE_AT.includes(done)) return;
              gc();
              gc();
              const m = process.memoryUsage();
              samples.push({
                done,
                heapUsedBytes: m.heapUsed,
                rssBytes: m.rss,
                externalBytes: m.external,
                arrayBuffersBytes: m.arrayBuffers,
              });
            },
            finish: async () => undefined,
          },
        ],
      },
    );
    const durationS = Number(process.hrtime.bigint() - started) / 1e9;
    const resultPath = join(dir, 'soak.json');
    await writeResultFile(resultPath, outcome.result);
    const result = JSON.parse(readFileSync(resultPath, 'utf8')) as {
      requests: number;
      completed: number;
      failed: number;
      failures: { request_index: number; error_type: string }[];
      request_timings: { request_index: number }[];
    };
    const journal = readJournalBytes(readFileSync(journalPath));
    const journalFailed = journal.results
      .filter((r) => !r.ok)
      .map((r) => `${r.requestIndex}:${r.error?.type ?? ''}`)
      .sort();
    const resultFailed = result.failures.map((f) => `${f.request_index}:${f.error_type}`).sort();
    const journalCompleted = new Set(journal.results.filter((r) => r.ok).map((r) => r.requestIndex));
    const types: Record<string, number> = {};
    for (const f of result.failures) types[f.error_type] = (types[f.error_type] ?? 0) + 1;
    process.stdout.write(
      `${JSON.stringify({
        durationS,
        requests: result.requests,
        completed: result.completed,
        failed: result.failed,
        failureTypes: types,
        journalRequests: journal.results.length,
        journalIndicesUnique: new Set(journal.results.map((r) => r.requestIndex)).size,
        journalFailuresEqual: JSON.stringify(journalFailed) === JSON.stringify(resultFailed),
        journalCompleted: journalCompleted.size,
        rowsInJournalCompleted: result.request_timings.every((row) => journalCompleted.has(row.request_index)),
        journalEnded: journal.end !== null,
        samples,
        problems,
      })}\n`,
    );
  } finally {
    await sim.stop();
  }
}

main().catch((error: unknown) => {
  process.stdout.write(`${JSON.stringify({ fatal: String(error instanceof Error ? error.stack : error) })}\n`);
  process.exitCode = 1;
});
