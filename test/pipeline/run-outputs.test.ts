/**
 * The pipeline drives the outputs it is given in one loop (pipeline/run-output.ts): named once
 * set-up is over, started with the complete header once the clock has started, each request sent
 * and recorded, finished with the end facts — each output seeing what the ones before it added
 * (the journal's status) — and the result assembled from the same header and end.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags } from '../../src/cli/parse.js';
import { RUN_FLAGS } from '../../src/cli/options.js';
import { resolveRunConfig } from '../../src/config/run-config.js';
import { runBenchmark } from '../../src/pipeline/benchmark.js';
import { JournalOutput } from '../../src/pipeline/journal-output.js';
import type { RunEnding, RunOutput } from '../../src/pipeline/run-output.js';
import type { RunHeader } from '../../src/assemble/assemble.js';
import { readJournalBytes } from '../../src/record/read-journal.js';
import { startSim } from '../../src/sim/server.js';
import { resultView, runView } from '../../src/result/run-view.js';
import { parseResultText } from '../../src/result/io.js';
import { serializeResult } from '../../src/result/pyjson.js';

test('every output is named, started, fed and finished in order; the journal is one of them', async () => {
  const sim = await startSim({ decode_step_ms: 1, prefill_tok_s: 2e6 });
  const dir = mkdtempSync(join(tmpdir(), 'servebench-run-outputs-'));
  try {
    const argv = [
      ...['--requests', '6', '--concurrency', '2', '--max-tokens', '4', '--ctx-tokens', '200'],
      ...['--shared-prefix-tokens', '0', '--tokenizer', 'chars:3.0', '--model', 'servebench-sim'],
      ...['--max-model-len', '32768'],
    ];
    const parsed = parseFlags(argv, RUN_FLAGS);
    const config = resolveRunConfig(parsed.values, {}, dir, parsed.given);
    const calls: string[] = [];
    let named: string | null = null;
    let header: RunHeader | null = null;
    let ending: RunEnding | null = null;
    let journalPath: string | null = null;
    const journal = new JournalOutput((runId) => {
      journalPath = join(dir, `${runId}.journal.jsonl`);
      return journalPath;
    });
    const watcher: RunOutput = {
      named: (runId) => {
        calls.push('named');
        named = runId;
      },
      start: (started, run) => {
        calls.push('start');
        header = started;
        assert.equal(run.requests, 6);
        assert.equal(typeof run.runStartNs, 'bigint');
      },
      sent: () => void calls.push('sent'),
      record: () => void calls.push('record'),
      finish: async (end) => {
        calls.push('finish');
        ending = end;
      },
    };
    const outcome = await runBenchmark(
      config,
      { baseUrl: sim.url, apiKey: null, embeddedSimulator: false },
      {
        outputs: [journal, watcher],
      },
    );
    assert.deepEqual(calls.slice(0, 2), ['named', 'start']);
    assert.equal(calls.at(-1), 'finish');
    assert.equal(calls.filter((c) => c === 'record').length, 6);
    assert.equal(calls.filter((c) => c === 'sent').length, 6);
    const started = header as RunHeader | null;
    assert.ok(started !== null);
    // Named before the clock with the id the header and the result carry.
    assert.equal(named, started.meta.run_id);
    assert.equal(outcome.result['run_id'], named);
    // The header handed out is complete: the clock's facts are in it.
    assert.ok(started.servebench['clock'] !== undefined);
    assert.ok(started.servebench['connections'] !== undefined);
    // The journal's status, added by the output before, is in the end facts the later ones see.
    const end = (ending as RunEnding | null)?.end;
    assert.equal(end?.journal?.path, journalPath);
    assert.equal(end?.journal?.complete, true);
    assert.equal(outcome.journalPath, journalPath);
    // The journal holds the very header the outputs were given.
    const read = readJournalBytes(readFileSync(journalPath!));
    assert.deepEqual(read.run, JSON.parse(JSON.stringify(started)));
    assert.equal(read.results.length, 6);
    // The report's view of the result in memory is the view of its file read back (run --report).
    const file = join(dir, 'r.json');
    assert.deepEqual(
      resultView(file, outcome.result),
      runView(file, parseResultText(file, serializeResult(outcome.result)).result),
    );
  } finally {
    await sim.close();
  }
});
