/**
 * The assembler reads a run's records from the record store's columns, builds each row when the
 * writer reads it, and takes its figures from typed columns (docs/architecture.md#a-run-from-flags-to-file,
 * step 8). The file it writes must be byte for byte the file an array of the same records gives:
 * checked on a generated open-loop run with failures, warm-up, retried attempts, tool calls,
 * reasoning, odd usage and records out of request order.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { assembleResult } from '../../src/assemble/assemble.js';
import { runHeader } from '../../src/assemble/header.js';
import { sortedByRequestIndex } from '../../src/record/records.js';
import { RecordStore } from '../../src/record/store/record-store.js';
import type { RequestResult } from '../../src/record/types.js';
import { serializeResult } from '../../src/result/pyjson.js';
import { failed, ok } from '../helpers/request-results.js';
import { planOf } from '../helpers/plans.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-store-assembly-'));

/** A deterministic pseudo-random stream (xorshift32), so the run is the same on every machine. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

function recordsOf(n: number): RequestResult[] {
  const next = random(33);
  const out: RequestResult[] = [];
  for (let i = 0; i < n; i++) {
    const start = i * 7.25 + next() * 3;
    const chunks = 1 + Math.floor(next() * 40);
    const offsets: number[] = [];
    let ns = Math.round(2e7 + next() * 3e8);
    for (let c = 0; c < chunks; c++) {
      offsets.push(ns / 1e9);
      ns += Math.round(next() < 0.05 ? 0 : next() * 4e7);
    }
    const ttft = offsets[0]!;
    const e2e = offsets.at(-1)! + 0.001;
    const common = {
      requestIndex: i,
      plannedContextTokens: 256 + (i % 5) * 128,
      startOffsetMs: start,
      scheduledOffsetMs: i * 7.25,
      sendWaitMs: next() * 0.2,
      expectedPromptTokens: 250 + (i % 9),
      maxTokens: 64,
    };
    const roll = next();
    let r: RequestResult;
    if (roll < 0.04)
      r = failed({
        ...common,
        httpStatus: 500,
        error: { type: 'HTTPStatusError', message: 'boom', httpStatus: 500, bodyExcerpt: '{"e":1}', atS: 0.01 },
      });
    else
      r = ok({
        ...common,
        timeToFirstOutputS: roll < 0.2 ? ttft / 2 : ttft,
        ttftS: ttft,
        e2eS: e2e,
        contentChunks: chunks,
        reasoningChunks: roll < 0.2 ? 3 : 0,
        chunkOffsetsS: offsets,
        usage:
          roll < 0.1
            ? { prompt_tokens: 251 }
            : {
                prompt_tokens: 250 + (i % 9),
                completion_tokens: chunks,
                prompt_tokens_details: { cached_tokens: i % 3 === 0 ? 128 : 0 },
              },
        finishReason: roll < 0.5 ? 'stop' : 'length',
        responseId: `chatcmpl-${i}`,
        ...(roll > 0.97 ? { toolCalls: { calls: 1, chunks: 2, argumentBytes: 17, firstS: ttft } } : {}),
        ...(roll > 0.95 && roll <= 0.97
          ? {
              connectionRetries: 1,
              attempts: [
                {
                  attempt: 1,
                  kind: 'stale-connection' as const,
                  startOffsetMs: start - 1,
                  error: {
                    type: 'ConnectionResetError',
                    message: 'reset',
                    httpStatus: null,
                    bodyExcerpt: null,
                    atS: 0,
                  },
                  retryAfterS: null,
                  waitS: 0,
                },
              ],
            }
          : {}),
      });
    out.push({ ...r, warmup: i < 40 });
  }
  // Finished in an order of their own, as a loop records them.
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.max(0, i - Math.floor(next() * 8));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

test('a run assembled from the record store writes the bytes an array of its records writes', async () => {
  const n = 3000;
  const plan = await planOf(
    [
      '--requests',
      String(n),
      '--rate',
      '100',
      '--ctx-tokens',
      '512',
      '--tokenizer',
      'chars:3.0',
      '--slo',
      'ttft_p95<=200',
    ],
    dir,
  );
  const header = runHeader(plan, {
    baseUrl: 'http://127.0.0.1:9/v1',
    startedAt: new Date(Date.parse('2026-12-06T10:00:00Z')),
    embeddedSimulator: false,
    toolVersion: '0.1.0',
    nodeVersion: 'v20',
    host: 'host',
  });
  const records = recordsOf(n);
  const store = new RecordStore(512);
  for (const r of records) store.append(r);
  const end = { wallSeconds: n * 0.00725 + 1, finishedAt: '2026-12-06T10:00:23Z', interrupted: false };
  const fromArray = assembleResult(
    header,
    [...records].sort((a, b) => a.requestIndex - b.requestIndex),
    end,
  ).result;
  const fromStore = assembleResult(header, sortedByRequestIndex(store.withoutOffsets()), end).result;
  assert.ok(fromArray.request_timings.length > 2500 && fromArray.failures.length > 50);
  assert.ok(fromArray.servebench.metrics.inter_chunk.gap_ms_p50 !== null);
  assert.equal(serializeResult(fromStore), serializeResult(fromArray));
});
