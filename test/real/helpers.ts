/** Shared pieces of the real-engine suite: running the CLI into a result file, and printing figures. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliRun } from '../helpers/cli.js';

export type Row = Record<string, unknown> & {
  request_index: number;
  planned_context_tokens: number;
  prompt_tokens: number | null;
  output_tokens: number | null;
  time_to_first_output_ms: number;
  e2e_ms: number;
  generation_ms: number;
  decode_tok_s: number | null;
  content_chunks: number;
  finish_reason: string | null;
  response_id: string | null;
  cached_tokens: number | null;
};

export type Failure = Record<string, unknown> & {
  request_index: number;
  error_type: string;
  error_message: string;
  http_status: number | null;
  error_body_excerpt: string | null;
};

export interface BenchResult {
  run: CliRun;
  result: Record<string, unknown> & {
    request_timings: Row[];
    failures: Failure[];
    completed: number;
    failed: number;
    requests: number;
  };
  seconds: number;
}

const outDir = mkdtempSync(join(tmpdir(), 'servebench-real-'));
let runs = 0;

/** `servebench run --base-url URL --quiet --output FILE ...args`; asserts a result file was written. */
export async function bench(
  baseUrl: string,
  args: string[],
  expectCode: number | null = 0,
  env?: NodeJS.ProcessEnv,
): Promise<BenchResult> {
  const output = join(outDir, `run-${++runs}.json`);
  const t0 = performance.now();
  const run = await runCli(['run', '--base-url', baseUrl, '--output', output, '--quiet', ...args], {
    timeoutMs: 240_000,
    ...(env !== undefined ? { env } : {}),
  });
  const seconds = (performance.now() - t0) / 1000;
  if (expectCode !== null)
    assert.equal(run.code, expectCode, `servebench run exit code\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  const result = JSON.parse(readFileSync(output, 'utf8')) as BenchResult['result'];
  assert.equal(result.completed + result.failed, result.requests, 'completed + failed = requests');
  return { run, result, seconds };
}

/** Prints a small aligned table to stdout (node:test shows it with the test's output). */
export function printTable(title: string, header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? formatNumber(c) : c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  const line = (r: (string | number)[]): string => r.map((c, i) => String(c).padStart(widths[i]!)).join('  ');
  console.log(`\n${title}\n${cells.map((r) => `  ${line(r)}`).join('\n')}`);
}

export function formatNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return Math.abs(n) >= 100 ? n.toFixed(1) : n.toFixed(2);
}

export function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}
