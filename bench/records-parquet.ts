/**
 * Writing the records file (`--records`): rows per second through the Parquet writer
 * (records-writer.ts) for `--rows` synthetic requests, against writing the same rows and chunk
 * offsets as NDJSON (one JSON.stringify and write per row) in the same run. Figures: bench/README.md.
 *
 *   node dist/bench/records-parquet.js [--rows 1000000] [--chunks 16]
 *
 * The rows are built before either clock starts (the summary bench's synthetic run, ~1% failures),
 * so both sides time only the writing. The last line is one JSON object of the figures.
 */
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFailure, buildRow } from '../src/metrics/rows.js';
import type { FailureRecord, WrittenRow } from '../src/metrics/types.js';
import { openRecordsWriter } from '../src/result/records-writer.js';
import { isEntryModule } from '../src/util/entry.js';
import { numberArg } from './args.js';
import { syntheticRun } from './summarize.js';

interface Entry {
  record: WrittenRow | FailureRecord;
  offsets: number[] | undefined;
}

function entries(n: number, chunks: number): Entry[] {
  const { results } = syntheticRun(n, chunks);
  const out: Entry[] = [];
  for (const r of results) {
    const record = r.ok ? buildRow(r) : buildFailure(r);
    if (record !== null) out.push({ record, offsets: r.chunkOffsetsS });
  }
  return out;
}

async function writeParquet(file: string, rows: readonly Entry[]): Promise<number> {
  const start = performance.now();
  const writer = await openRecordsWriter(file);
  for (const e of rows) await writer.add(e.record, e.offsets);
  await writer.finish();
  return (performance.now() - start) / 1000;
}

async function writeNdjson(file: string, rows: readonly Entry[]): Promise<number> {
  const start = performance.now();
  const out = createWriteStream(file);
  for (const e of rows) {
    const line = `${JSON.stringify({ ...e.record, chunk_offsets_ms: e.offsets?.map((s) => s * 1000.0) ?? null })}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return (performance.now() - start) / 1000;
}

async function main(argv: readonly string[]): Promise<void> {
  const flag = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i < 0 ? undefined : argv[i + 1];
  };
  const n = numberArg('--rows', flag('--rows') ?? '1000000', 'count');
  const chunks = numberArg('--chunks', flag('--chunks') ?? '16', 'count');
  const rows = entries(n, chunks);
  const dir = mkdtempSync(join(tmpdir(), 'servebench-records-bench-'));
  try {
    const parquetFile = join(dir, 'r.parquet');
    const ndjsonFile = join(dir, 'r.ndjson');
    const ndjsonS = await writeNdjson(ndjsonFile, rows);
    const parquetS = await writeParquet(parquetFile, rows);
    const figures = {
      rows: rows.length,
      chunks,
      parquet_s: Number(parquetS.toFixed(3)),
      parquet_rows_per_s: Math.round(rows.length / parquetS),
      parquet_bytes: statSync(parquetFile).size,
      ndjson_s: Number(ndjsonS.toFixed(3)),
      ndjson_rows_per_s: Math.round(rows.length / ndjsonS),
      ndjson_bytes: statSync(ndjsonFile).size,
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
    console.log(`parquet: ${figures.parquet_rows_per_s} rows/s, ${figures.parquet_bytes} bytes`);
    console.log(`ndjson:  ${figures.ndjson_rows_per_s} rows/s, ${figures.ndjson_bytes} bytes`);
    console.log(JSON.stringify(figures));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isEntryModule(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
