/**
 * The result writer on a merged result's request rows (bench/README.md, "Rows written from their
 * values"). Not part of `npm run bench` (it writes its shard files first). Build, then:
 *
 *   node dist/bench/row-writer.js                       # 1,000,000 records from 100 shard files
 *   node dist/bench/row-writer.js --records 200000 --runs 5
 *
 * Writes the shard files as merge.js does, merges them in this process (mergeShardFiles), and
 * then, `--runs` times each and alternating, serializes the result's `request_timings` with
 * pyjson.ts (the pieces are counted, not written to disk): once as the merge hands them over (each
 * plain row written from its values, util/lazy-array.ts FlatItems), and once as the baseline, the
 * same rows through a lazy list that only builds each row object (the writer's path for any array
 * of objects, and the path of the code before). Each run's CPU time (the process's, user +
 * system) and the two outputs' SHA-256, which must agree. The last line is one JSON object of the
 * medians and their ratio.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { serializeJsonChunks } from '../src/result/pyjson.js';
import { mergeShardFiles } from '../src/shard/merge.js';
import { isEntryModule } from '../src/util/entry.js';
import { lazyArray } from '../src/util/lazy-array.js';
import { numberArg } from './args.js';
import { smallPlan } from './merge.js';
import { generateShards, shardFile } from './merge-shards.js';

interface Options {
  records: number;
  shards: number;
  runs: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { records: 1_000_000, shards: 100, runs: 3 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--records') options.records = numberArg(flag, value, 'count');
    else if (flag === '--shards') options.shards = numberArg(flag, value, 'count');
    else if (flag === '--runs') options.runs = numberArg(flag, value, 'count');
    else throw new Error(`unknown argument ${flag} (use --records, --shards, --runs)`);
  }
  if (options.records < options.shards) throw new Error('--records: expected at least one record per shard');
  return options;
}

/** CPU milliseconds and the SHA-256 of writing `rows` as the result's `request_timings`. */
function write(rows: unknown[]): { cpuMs: number; sha256: string; chars: number } {
  const hash = createHash('sha256');
  let chars = 0;
  const before = process.cpuUsage();
  for (const piece of serializeJsonChunks({ request_timings: rows })) {
    chars += piece.length;
    hash.update(piece);
  }
  const used = process.cpuUsage(before);
  return { cpuMs: (used.user + used.system) / 1000, sha256: hash.digest('hex'), chars };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'servebench-bench-row-writer-'));
  try {
    const plan = await smallPlan(2 * options.shards, dir);
    const set = { plan, records: options.records, count: options.shards, t0: Date.parse('2026-12-02T00:00:00Z') };
    const { perShard } = await generateShards(dir, set, availableParallelism());
    const files = perShard.map((_, index) => shardFile(dir, index));
    const { result } = await mergeShardFiles(files, { allowPartial: false });
    const rows = result.request_timings;
    // The baseline: the same rows, each built as an object (no FlatItems on this list).
    const objects = lazyArray(rows.length, (i) => rows[i]);
    console.log(`${rows.length} request rows of ${options.records} records in ${options.shards} shard files`);
    const values: number[] = [];
    const built: number[] = [];
    const hashes = new Set<string>();
    for (let run = 1; run <= options.runs; run++) {
      const base = write(objects);
      const fast = write(rows);
      built.push(base.cpuMs);
      values.push(fast.cpuMs);
      hashes.add(base.sha256).add(fast.sha256);
      console.log(
        `run ${run}: rows as objects ${(base.cpuMs / 1000).toFixed(2)} s CPU, from their values ${(fast.cpuMs / 1000).toFixed(2)} s (${(fast.chars / 1e6).toFixed(0)} MB of text)`,
      );
    }
    if (hashes.size !== 1) throw new Error(`the two ways wrote different text (${hashes.size} digests)`);
    console.log(`the same text both ways (sha256 ${[...hashes][0]!.slice(0, 16)}…)`);
    const figures = {
      rows: rows.length,
      objects_cpu_s: median(built) / 1000,
      values_cpu_s: median(values) / 1000,
      ratio: median(values) / median(built),
    };
    console.log(JSON.stringify(figures));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isEntryModule(import.meta.url))
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
