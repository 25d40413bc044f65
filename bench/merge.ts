/**
 * Merging shard files at scale (the merge-at-scale goal: 10,000,000 records from 100 shard files in under 60 s
 * and under 2 GB peak RSS on the 2-core CI machine). Not part of `npm run bench` (it writes
 * gigabytes and takes minutes). Build, then:
 *
 *   node dist/bench/merge.js                              # 10,000,000 records in 100 shard files
 *   node dist/bench/merge.js --records 1000000 --shards 10
 *   node dist/bench/merge.js --timeout 300                # kill a merge after 300 s
 *   node dist/bench/merge.js --records-file               # rows to Parquet too (merge --records)
 *   node dist/bench/merge.js --records 1000000 --cpu-prof /tmp/prof   # a V8 CPU profile of the merge
 *   node dist/bench/merge.js --previous OLD/dist/src/cli/main.js      # another build merges the same files first
 *
 * Writes `--shards` shard files of one closed-loop plan (concurrency 2 × shards, so each shard
 * holds two slots) with the shard file writer itself, so the format is the real one (frames of
 * record blocks): `--records` request records in all, generated as they are written (never held)
 * on worker threads, one a core, each writing whole files (merge-shards.ts). The records are
 * ~99% successes with a server usage count and 16–64 chunk offsets, ~1% failures, the same for a
 * given `--records` and `--shards` every time. Chunk offsets are whole nanoseconds in increasing
 * order, as the client stamps them (`ns / 1e9`), with the TTFT, end and failure instant derived
 * from them, so the record store keeps them as varint gaps as it does a real run's (offsets at
 * full double precision, as earlier versions of this bench made, took the store's rare path of
 * offsets kept as given, and made files several times larger and slow to write). The plan is a
 * small one stretched in the header to `--records` requests: merge checks that the headers agree
 * and that every index is below the plan's count and in its shard's part, and never reads the
 * plan's own arrays.
 *
 * Then, each in a child process with its peak RSS (VmHWM) sampled: the baseline (every shard
 * file read and every block decoded by servebench's own reader, readRecordFile, counting the
 * records and keeping nothing: the floor any merge of these files pays) and
 * `servebench merge … --output`, with `--records-file` also `--records DIR/merged.parquet` (so
 * above `--inline-rows`, 1,000,000 by default, the rows go only to the Parquet file). A merge that
 * fails (out of memory, or killed at `--timeout`) is reported as such, then retried on the first
 * half of the shard files (`--allow-partial`: the same work per record, on fewer records) until
 * one succeeds, so the largest size that worked is measured. The temporary directory is removed
 * at the end.
 *
 * The last line of stdout is one JSON object: `records`, `shards`, `merge_s` (the merge child's
 * wall seconds), `peak_rss_mb` (its VmHWM, MiB), `baseline_s` (the baseline's wall seconds on the
 * same files) and `result_bytes` (the merged result file's size), for the largest merge that
 * worked; when none did, for the files asked, with null for each figure of a step that failed.
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFlags } from '../src/cli/parse.js';
import { RUN_FLAGS } from '../src/cli/options.js';
import { resolveRunConfig } from '../src/config/run-config.js';
import { planLoad } from '../src/plan/load-plan.js';
import { planRun } from '../src/plan/make-plan.js';
import { promptCap } from '../src/plan/prompt-cap.js';
import type { RunPlan } from '../src/plan/run-plan.js';
import { readRecordFile } from '../src/record/file/read-record-file.js';
import { isEntryModule } from '../src/util/entry.js';
import { fixedRatioSizer } from '../src/workload/workload.js';
import { numberArg } from './args.js';
import { CLI_PATH, runMeasured, type ClientRun } from './harness.js';
import { generateShards, shardFile } from './merge-shards.js';

/** The merge-at-scale goal. */
const GOAL = { seconds: 60, rssBytes: 2e9 };

interface MergeBenchOptions {
  records: number;
  shards: number;
  timeoutS: number;
  /** Where the merge child writes a V8 CPU profile (`--cpu-prof`), or null. */
  cpuProfDir: string | null;
  /** The merge also writes its rows to a Parquet records file (`--records-file`). */
  recordsFile: boolean;
  /** Another build's CLI (`--previous OLD/dist/src/cli/main.js`) merging the same files once, before this one. */
  previous: string | null;
}

function parseArgs(argv: string[]): MergeBenchOptions {
  const options: MergeBenchOptions = {
    records: 10_000_000,
    shards: 100,
    timeoutS: 600,
    cpuProfDir: null,
    recordsFile: false,
    previous: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--records-file') {
      options.recordsFile = true;
      continue;
    }
    const value = argv[++i];
    switch (flag) {
      case '--records':
        options.records = numberArg('--records', value, 'count');
        break;
      case '--shards':
        options.shards = numberArg('--shards', value, 'count');
        break;
      case '--timeout':
        options.timeoutS = numberArg('--timeout', value, 'positive');
        break;
      case '--cpu-prof':
        if (value === undefined || value === '') throw new Error('--cpu-prof: expected a directory');
        options.cpuProfDir = resolve(value);
        break;
      case '--previous':
        if (value === undefined || value === '') throw new Error("--previous: expected the path of a build's CLI");
        options.previous = resolve(value);
        break;
      default:
        throw new Error(
          `unknown argument ${flag} (use --records, --shards, --timeout, --records-file, --cpu-prof, --previous)`,
        );
    }
  }
  if (options.records < options.shards) throw new Error('--records: expected at least one record per shard');
  return options;
}

/** A closed-loop plan of `concurrency` slots, made by the plan stage with a fixed-ratio counter (no server). */
export async function smallPlan(concurrency: number, dir: string): Promise<RunPlan> {
  const args = ['--requests', String(concurrency), '--concurrency', String(concurrency), '--tokenizer', 'chars:3.0'];
  const parsed = parseFlags(args, RUN_FLAGS);
  const config = resolveRunConfig(parsed.values, {}, dir, parsed.given);
  const window = 32768;
  const cap = promptCap(window, config.workload.maxTokens, config.workload.margin);
  const sizer = fixedRatioSizer(3);
  const { plan } = await planRun(
    config,
    planLoad(config),
    { model: 'm', window, windowSource: 'exact', cap },
    { sizer, info: () => ({ method: sizer.method }) },
  );
  return plan;
}

/** The baseline, run as a child: read every shard file and decode every block, counting the records, keeping nothing. */
async function decodeEveryBlock(files: readonly string[]): Promise<void> {
  let records = 0;
  for (const file of files) records += (await readRecordFile(file)).store.length;
  process.stdout.write(`${records}\n`);
}

const SELF = fileURLToPath(import.meta.url);

interface Figures {
  shards: number;
  records: number;
  run: ClientRun;
  ok: boolean;
  /** The merged result file's size (a merge that worked), else null. */
  resultBytes: number | null;
  /** Its SHA-256 (a merge that worked), else null. */
  sha256: string | null;
}

const mib = (x: number | null): string =>
  x === null ? '?' : `${x.toFixed(0)} MiB (${((x * 2 ** 20) / 1e9).toFixed(2)} GB)`;

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function line(label: string, f: Figures, baseline: Figures | null): string {
  const wall = f.run.wallMs / 1000;
  const ratio =
    baseline !== null && baseline.ok
      ? `, ${(wall / (baseline.run.wallMs / 1000)).toFixed(2)}× the baseline's time`
      : '';
  const status = f.ok
    ? ''
    : /heap out of memory/.test(f.run.stderr)
      ? ' — FAILED: out of JavaScript heap'
      : f.run.code === null
        ? ' — KILLED (timeout or signal)'
        : ` — FAILED (exit ${f.run.code})`;
  return `${label.padEnd(9)} ${String(f.records).padStart(10)} records in ${String(f.shards).padStart(3)} files: wall ${wall.toFixed(1)} s, peak RSS ${mib(f.run.peakRssMiB)}${ratio}${status}`;
}

/** Why a child failed: V8's fatal error line when there is one (a native stack follows it), else its last line. */
function failureLine(text: string): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return (lines.find((l) => /FATAL ERROR|out of memory/.test(l)) ?? lines.pop() ?? '').trim();
}

/** The last line: the figures of `merged` (and `baseline`, on the same files), null where a step failed. */
function summary(merged: Figures, baseline: Figures): string {
  const seconds = (f: Figures): number | null => (f.ok ? Number((f.run.wallMs / 1000).toFixed(3)) : null);
  return JSON.stringify({
    records: merged.records,
    shards: merged.shards,
    merge_s: seconds(merged),
    peak_rss_mb: merged.ok && merged.run.peakRssMiB !== null ? Number(merged.run.peakRssMiB.toFixed(1)) : null,
    baseline_s: seconds(baseline),
    result_bytes: merged.resultBytes,
  });
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--decode-only') return decodeEveryBlock(argv.slice(1));
  const options = parseArgs(argv);
  const dir = mkdtempSync(join(tmpdir(), 'servebench-bench-merge-'));
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)
    process.once(signal, () => {
      cleanup();
      process.exit(code);
    });
  try {
    const { records, shards } = options;
    const plan = await smallPlan(2 * shards, dir);
    const t0 = Date.parse('2026-12-02T00:00:00Z');
    const generated = process.hrtime.bigint();
    const threads = availableParallelism();
    const { perShard, bytes } = await generateShards(dir, { plan, records, count: shards, t0 }, threads);
    const files = perShard.map((_, index) => shardFile(dir, index));
    const genS = Number(process.hrtime.bigint() - generated) / 1e9;
    console.log(
      `generated ${records} records in ${shards} shard files on ${threads} threads (${(bytes / 1e9).toFixed(2)} GB, ${(bytes / records).toFixed(0)} bytes a record) in ${genS.toFixed(1)} s`,
    );
    console.log(`goal: under ${GOAL.seconds} s and under ${GOAL.rssBytes / 1e9} GB peak RSS; ${process.version}`);
    console.log(
      `baseline: every shard file read and every block decoded (readRecordFile), nothing kept; merge${options.recordsFile ? ' with --records merged.parquet' : ''}`,
    );
    const timeoutMs = options.timeoutS * 1000;
    const measure = async (count: number, merge: boolean, cli: string = CLI_PATH): Promise<Figures> => {
      const chosen = files.slice(0, count);
      const n = perShard.slice(0, count).reduce((a, b) => a + b, 0);
      const output = join(dir, `merged-${count}.json`);
      const parquet = join(dir, 'merged.parquet');
      const args = merge
        ? [
            ...(options.cpuProfDir === null || cli !== CLI_PATH
              ? []
              : ['--cpu-prof', '--cpu-prof-dir', options.cpuProfDir]),
            cli,
            'merge',
            ...chosen,
            '--output',
            output,
            ...(options.recordsFile ? ['--records', parquet] : []),
            ...(count < shards ? ['--allow-partial'] : []),
          ]
        : [SELF, '--decode-only', ...chosen];
      const run = await runMeasured(process.execPath, args, timeoutMs);
      // merge exits 1 when some requests failed (these files hold failures): still a merged result.
      const ok = merge
        ? (run.code === 0 || run.code === 1) && statSync(output, { throwIfNoEntry: false }) !== undefined
        : run.code === 0 && Number(run.stdout.trim()) === n;
      let resultBytes: number | null = null;
      let sha256: string | null = null;
      if (merge && ok) {
        resultBytes = statSync(output).size;
        sha256 = await fileSha256(output);
        const parquetBytes = statSync(parquet, { throwIfNoEntry: false })?.size;
        console.log(
          `  merged result: ${(resultBytes / 1e9).toFixed(2)} GB${parquetBytes === undefined ? '' : `, records file ${(parquetBytes / 1e9).toFixed(2)} GB`}`,
        );
      }
      rmSync(output, { force: true });
      rmSync(parquet, { force: true });
      if (!ok)
        console.log(`  ${merge ? 'merge' : 'baseline'} failed: ${failureLine(run.stderr) || `exit ${run.code}`}`);
      return { shards: count, records: n, run, ok, resultBytes, sha256 };
    };
    const fullBaseline = await measure(shards, false);
    console.log(line('baseline', fullBaseline, null));
    // The previous build, once on every file (no halving: its failure is the finding).
    let previous: Figures | null = null;
    if (options.previous !== null) {
      console.log(`previous: ${options.previous}`);
      previous = await measure(shards, true, options.previous);
      console.log(line('previous', previous, fullBaseline));
    }
    let baseline = fullBaseline;
    let count = shards;
    let merged = await measure(count, true);
    console.log(line('merge', merged, baseline));
    if (previous?.sha256 != null && merged.sha256 !== null)
      console.log(
        `  the two builds' results are ${previous.sha256 === merged.sha256 ? 'byte for byte the same' : 'DIFFERENT'} (sha256 ${merged.sha256.slice(0, 16)}…)`,
      );
    while (!merged.ok && count > 1) {
      count = Math.ceil(count / 2);
      const attempt = await measure(count, true);
      const base = await measure(count, false);
      console.log(line('baseline', base, null));
      console.log(line('merge', attempt, base));
      if (attempt.ok) [merged, baseline] = [attempt, base];
    }
    if (!merged.ok) console.log('no merge succeeded, even of one shard file');
    else {
      const wall = merged.run.wallMs / 1000;
      const rss = (merged.run.peakRssMiB ?? Infinity) * 2 ** 20;
      const full =
        merged.shards === shards ? '' : ` (of ${records} asked: only ${merged.shards} of ${shards} files merged)`;
      console.log(
        `largest merge that worked: ${merged.records} records${full}: ${wall.toFixed(1)} s ${wall < GOAL.seconds ? 'meets' : 'MISSES'} the ${GOAL.seconds} s goal, ` +
          `peak RSS ${mib(merged.run.peakRssMiB)} ${rss < GOAL.rssBytes ? 'meets' : 'MISSES'} the 2 GB goal`,
      );
    }
    console.log(summary(merged, baseline));
  } finally {
    cleanup();
  }
}

if (isEntryModule(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
