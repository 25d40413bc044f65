/**
 * Soak: 2,000 requests at concurrency 64 against a simulator injecting a random fault into 10% of
 * them (every fault of docs/reliability.md, seeded), run in a child process with --expose-gc
 * (test/helpers/soak-child.ts). Checked: completed + failed = planned; the journal holds every request once
 * and exactly the result's outcomes; no unhandled rejection or exception; memory flat.
 *
 * The memory bound: heap used after two full collections grows by at most 8 MiB between request
 * 500 and request 2000. The runner must keep every request's result until the end (the result is
 * built from them): about 1 KiB each here (32 output tokens), ~1.5 MiB for the 1,500 requests.
 * 8 MiB allows 5 KiB per request for that plus collector noise, while a leak per stream would
 * blow through it: ~9 huge_line faults each hold up to 1 MiB (the line bound) while they last, and
 * leaking the sockets, parsers or listeners of 150 failed streams costs far more than 8 MiB.
 * Buffers outside the heap (external + array buffers) must stay within 4 MiB of their level at
 * request 500, and RSS (which includes allocator slack) within 64 MiB.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SAMPLE_AT, SOAK_CONCURRENCY, SOAK_REQUESTS } from '../helpers/soak-plan.js';

const CHILD = fileURLToPath(new URL('../helpers/soak-child.js', import.meta.url));
const MiB = 1024 * 1024;

interface SoakReport {
  fatal?: string;
  durationS: number;
  requests: number;
  completed: number;
  failed: number;
  failureTypes: Record<string, number>;
  journalRequests: number;
  journalIndicesUnique: number;
  journalFailuresEqual: boolean;
  journalCompleted: number;
  rowsInJournalCompleted: boolean;
  journalEnded: boolean;
  samples: {
    done: number;
    heapUsedBytes: number;
    rssBytes: number;
    externalBytes: number;
    arrayBuffersBytes: number;
  }[];
  problems: string[];
}

function runChild(dir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', CHILD, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test(`soak: ${SOAK_REQUESTS} requests at concurrency ${SOAK_CONCURRENCY}, 10% random faults: nothing lost, journal = result, memory flat`, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-soak-'));
  try {
    const { code, stdout, stderr } = await runChild(dir);
    assert.equal(code, 0, `soak child failed: ${stdout}\n${stderr}`);
    const report = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as SoakReport;
    assert.equal(report.fatal, undefined);
    const at = (done: number) => report.samples.find((s) => s.done === done)!;
    t.diagnostic(
      `soak: ${report.durationS.toFixed(1)} s, ${report.completed} completed, ${report.failed} failed ${JSON.stringify(report.failureTypes)}; ` +
        `heap after GC ${report.samples.map((s) => `${s.done}: ${(s.heapUsedBytes / MiB).toFixed(1)}`).join(', ')} MiB; ` +
        `rss ${report.samples.map((s) => `${s.done}: ${(s.rssBytes / MiB).toFixed(0)}`).join(', ')} MiB`,
    );
    assert.deepEqual(report.problems, []);
    assert.equal(report.requests, SOAK_REQUESTS);
    assert.equal(report.completed + report.failed, SOAK_REQUESTS);
    assert.ok(report.failed >= 100 && report.failed <= 300, `${report.failed} failures for ~200 faults`);
    assert.ok(
      Object.keys(report.failureTypes).length >= 8,
      `a variety of failures: ${JSON.stringify(report.failureTypes)}`,
    );
    assert.equal(report.journalRequests, SOAK_REQUESTS);
    assert.equal(report.journalIndicesUnique, SOAK_REQUESTS);
    assert.equal(
      report.journalFailuresEqual,
      true,
      'the journal has exactly the failures of the result (index and type)',
    );
    assert.equal(report.journalCompleted, report.completed);
    assert.equal(report.rowsInJournalCompleted, true);
    assert.equal(report.journalEnded, true);
    assert.deepEqual(
      report.samples.map((s) => s.done),
      SAMPLE_AT,
    );
    const early = at(500);
    const late = at(SOAK_REQUESTS);
    assert.ok(
      late.heapUsedBytes - early.heapUsedBytes <= 8 * MiB,
      `heap grew ${((late.heapUsedBytes - early.heapUsedBytes) / MiB).toFixed(2)} MiB from request 500 to ${SOAK_REQUESTS}`,
    );
    const outside = (s: typeof early) => s.externalBytes + s.arrayBuffersBytes;
    assert.ok(
      outside(late) - outside(early) <= 4 * MiB,
      `external buffers grew ${((outside(late) - outside(early)) / MiB).toFixed(2)} MiB`,
    );
    assert.ok(
      late.rssBytes - early.rssBytes <= 64 * MiB,
      `rss grew ${((late.rssBytes - early.rssBytes) / MiB).toFixed(1)} MiB`,
    );
    assert.ok(report.durationS < 90, `${report.durationS} s`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
