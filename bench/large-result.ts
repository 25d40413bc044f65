/**
 * Reading a large result (issue 33 part 5: every command reads what servebench writes). Not part of
 * `npm run bench` (it writes a file of ~850 MB and takes minutes). Build, then:
 *
 *   node dist/bench/large-result.js                         # 1,000,000 requests
 *   node dist/bench/large-result.js --requests 100000
 *   node dist/bench/large-result.js --generate-only --requests 1000000 --out /tmp/big.json
 *   node dist/bench/large-result.js --records /tmp/big.parquet   # rows and failures only in Parquet
 *
 * Generates `--requests` measured requests as the client records them (the records of
 * bench/merge-shards.ts: ~99% successes with 16–64 chunk stamps in whole nanoseconds, ~1%
 * failures; a closed loop of 64 slots), assembles them with servebench's own assembler
 * (assembleResult) and writes the result with its own writer (writeResultFile), so the file is
 * exactly what `run` writes for such a run. Then, each in a
 * child process with its peak RSS sampled: `validate`, `show`, `compare FILE FILE`
 * (`--bootstrap 200`: the bootstrap's cost grows with rows × resamples) and `report --html`.
 * The last line is one JSON object of the figures. The temporary directory is removed at the end.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { assembleResult } from '../src/assemble/assemble.js';
import { runHeader } from '../src/assemble/header.js';
import type { RequestResult } from '../src/record/types.js';
import { writeResultFile } from '../src/result/io.js';
import { writeRecordsOutput } from '../src/pipeline/records-output.js';
import { chunkOffsetsByIndex } from '../src/result/records-offsets.js';
import { isEntryModule } from '../src/util/entry.js';
import { numberArg } from './args.js';
import { CLI_PATH, runMeasured } from './harness.js';
import { smallPlan } from './merge.js';
import { record, RecordMaker } from './merge-shards.js';
import { generator } from './random.js';

/** Slots of the generated closed loop. */
const CONCURRENCY = 64;

/**
 * Writes a result of `requests` measured requests to `out` with servebench's assembler and
 * writer; returns the file's size in bytes.
 */
export async function writeLargeResult(out: string, requests: number, records: string | null = null): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-large-plan-'));
  try {
    const plan = await smallPlan(CONCURRENCY, dir);
    const t0 = Date.parse('2026-12-02T00:00:00Z');
    const header = runHeader(plan, {
      baseUrl: 'http://127.0.0.1:9/v1',
      startedAt: new Date(t0),
      embeddedSimulator: false,
      toolVersion: '0.1.0',
      nodeVersion: process.version,
      host: 'bench',
    });
    const random = generator(1);
    const maker = new RecordMaker();
    const slotFree = new Float64Array(CONCURRENCY);
    const results: RequestResult[] = [];
    let wallMs = 0;
    for (let i = 0; i < requests; i++) {
      const slot = i % CONCURRENCY;
      const start = slotFree[slot]! + 0.5 * random();
      const result = record(i, start, random, maker);
      const endMs = start + 1000 * (result.e2eS ?? result.error!.atS);
      slotFree[slot] = endMs;
      wallMs = Math.max(wallMs, endMs);
      results.push(result);
    }
    const { result } = assembleResult(header, results, {
      wallSeconds: wallMs / 1000,
      finishedAt: new Date(t0 + wallMs).toISOString().replace(/\.\d+Z$/, 'Z'),
      interrupted: false,
    });
    // With a records file, every row and failure goes there and none stays inline (`--inline-rows 0`).
    const written =
      records === null
        ? result
        : await writeRecordsOutput(result, chunkOffsetsByIndex(results), { path: records, inlineRows: 0 }, out);
    results.length = 0;
    await writeResultFile(out, written);
    return statSync(out).size;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Options {
  requests: number;
  out: string | null;
  /** `--records FILE.parquet`: the rows and failures go to this records file only. */
  records: string | null;
  generateOnly: boolean;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { requests: 1_000_000, out: null, records: null, generateOnly: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--generate-only') options.generateOnly = true;
    else if (arg === '--requests') options.requests = numberArg('--requests', argv[++i], 'count');
    else if (arg === '--out') options.out = resolve(argv[++i] ?? '');
    else if (arg === '--records') options.records = resolve(argv[++i] ?? '');
    else throw new Error(`unknown argument ${arg} (use --requests, --out, --records, --generate-only)`);
  }
  return options;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'servebench-bench-large-'));
  const file = options.out ?? join(dir, 'large.json');
  try {
    const began = process.hrtime.bigint();
    const bytes = await writeLargeResult(file, options.requests, options.records);
    const genS = Number(process.hrtime.bigint() - began) / 1e9;
    console.log(`wrote ${options.requests} requests (${(bytes / 1e6).toFixed(0)} MB) in ${genS.toFixed(1)} s`);
    if (options.generateOnly) return;
    const html = join(dir, 'large.html');
    const commands: [string, string[]][] = [
      ['validate', ['validate', file]],
      ['show', ['show', file]],
      ['compare', ['compare', file, file, '--bootstrap', '200']],
      ['report --html', ['report', file, '--html', html]],
    ];
    const figures: Record<string, { s: number; peak_rss_mb: number | null; exit: number | null }> = {};
    for (const [name, args] of commands) {
      const run = await runMeasured(process.execPath, [CLI_PATH, ...args]);
      figures[name] = { s: run.wallMs / 1000, peak_rss_mb: run.peakRssMiB, exit: run.code };
      const rss = run.peakRssMiB === null ? '?' : `${run.peakRssMiB.toFixed(0)} MiB`;
      console.log(`${name.padEnd(14)} exit ${run.code}: ${(run.wallMs / 1000).toFixed(1)} s, peak RSS ${rss}`);
      if (run.code !== 0) console.log(run.stderr.trim().split('\n').slice(0, 3).join('\n'));
    }
    const htmlBytes = statSync(html, { throwIfNoEntry: false })?.size ?? null;
    console.log(JSON.stringify({ requests: options.requests, result_bytes: bytes, html_bytes: htmlBytes, ...figures }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isEntryModule(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
