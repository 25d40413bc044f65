/**
 * Merging shard files at scale (the merge-at-scale goal: 10,000,000 records from 100 shard files in under 60 s
 * and under 2 GB peak RSS on the 2-core CI machine). Not part of `npm run bench` (it writes
 * gigabytes and takes minutes). Build, then:
 *
 *   node dist/bench/merge.js                              # 10,000,000 records in 100 shard files
 *   node dist/bench/merge.js --records 1000000 --shards 10
 *   node dist/bench/merge.js --timeout 300                # kill a merge after 300 s
 *   node dist/bench/merge.js --records 1000000 --cpu-prof /tmp/prof   # a V8 CPU profile of the merge
 *
 * Writes `--shards` shard files of one closed-loop plan (concurrency 2 × shards, so each shard
 * holds two slots) with the shard file writer itself, so the format is the real one: `--records`
 * request records in all, generated as they are written (never held), ~99% successes with a
 * server usage count and 16–64 chunk offsets at full double precision, ~1% failures. The plan is
 * a small one stretched in the header to `--records` requests: merge checks that the headers
 * agree and that every index is below the plan's count and in its shard's part, and never reads
 * the plan's own arrays.
 *
 * Then, each in a child process with its peak RSS (VmHWM) sampled: the baseline (every line of the
 * same files read and `JSON.parse`d, nothing kept: the floor any merge that parses the files pays)
 * and `servebench merge … --output`. A merge that fails (out of memory, or killed at `--timeout`)
 * is reported as such, then retried on the first half of the shard files (`--allow-partial`: the
 * same work per record, on fewer records) until one succeeds, so the largest size that worked is
 * measured. The temporary directory is removed at the end.
 */
import { once } from 'node:events';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { runHeader } from '../src/assemble/header.js';
import { parseFlags } from '../src/cli/parse.js';
import { RUN_FLAGS } from '../src/cli/options.js';
import { resolveRunConfig } from '../src/config/run-config.js';
import { planLoad } from '../src/plan/load-plan.js';
import { planRun } from '../src/plan/make-plan.js';
import { promptCap } from '../src/plan/prompt-cap.js';
import type { RunPlan } from '../src/plan/run-plan.js';
import { planHash } from '../src/pipeline/shard-run.js';
import type { RequestResult } from '../src/record/types.js';
import { ShardFileWriter, type ShardHeaderInput } from '../src/shard/shard-file.js';
import { isEntryModule } from '../src/util/entry.js';
import { fixedRatioSizer } from '../src/workload/workload.js';
import { numberArg } from './args.js';
import { CLI_PATH, runMeasured, type ClientRun } from './harness.js';
import { generator } from './random.js';

/** The merge-at-scale goal. */
const GOAL = { seconds: 60, rssBytes: 2e9 };

interface MergeBenchOptions {
  records: number;
  shards: number;
  timeoutS: number;
  /** Where the merge child writes a V8 CPU profile (`--cpu-prof`), or null. */
  cpuProfDir: string | null;
}

function parseArgs(argv: string[]): MergeBenchOptions {
  const options: MergeBenchOptions = { records: 10_000_000, shards: 100, timeoutS: 600, cpuProfDir: null };
  for (let i = 0; i < argv.length; i += 2) {
    const value = argv[i + 1];
    switch (argv[i]) {
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
      default:
        throw new Error(`unknown argument ${argv[i]} (use --records, --shards, --timeout, --cpu-prof)`);
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

/** One measured request as the client records it: a success (usage, 16–64 chunk stamps) or, 1 in 100, a failure. */
export function record(index: number, startOffsetMs: number, random: () => number): RequestResult {
  const ttft = 0.05 + 0.4 * random();
  const chunks = 16 + Math.floor(49 * random());
  const offsets: number[] = [];
  let t = ttft;
  for (let j = 0; j < chunks; j++) {
    offsets.push(t);
    t += 0.015 + 0.01 * random();
  }
  const common = {
    requestIndex: index,
    plannedContextTokens: 4096,
    startOffsetMs,
    timeToFirstOutputS: ttft,
    ttftS: ttft,
    reasoningChunks: 0,
    expectedPromptTokens: 4000,
    maxTokens: 64,
    sendWaitMs: 0.05 * random(),
  };
  if (random() < 0.01)
    return {
      ...common,
      ok: false,
      e2eS: null,
      contentChunks: 3,
      chunkOffsetsS: offsets.slice(0, 3),
      usage: null,
      finishReason: null,
      responseId: `chatcmpl-${index}`,
      httpStatus: 200,
      error: {
        type: 'ConnectionResetError',
        message: 'read ECONNRESET',
        httpStatus: 200,
        bodyExcerpt: null,
        atS: offsets[2]! + 0.01,
      },
    };
  return {
    ...common,
    ok: true,
    e2eS: offsets[chunks - 1]! + 0.001,
    contentChunks: chunks,
    chunkOffsetsS: offsets,
    usage: {
      prompt_tokens: 3900 + Math.floor(200 * random()),
      completion_tokens: chunks,
      total_tokens: 3900 + chunks,
      prompt_tokens_details: { cached_tokens: 2048 },
    },
    finishReason: 'length',
    responseId: `chatcmpl-${index}`,
    httpStatus: 200,
    error: null,
  };
}

/**
 * Writes shard `index` of `count`: requests i ≡ index (mod count) of `records` (concurrency
 * 2 × count, so slots index and index + count are this shard's and request i runs on slot
 * i mod concurrency), each slot starting its next request when the last ends.
 */
function writeShard(file: string, plan: RunPlan, records: number, index: number, count: number, t0: number): number {
  const concurrency = 2 * count;
  const part = Math.ceil((records - index) / count);
  const header: ShardHeaderInput = {
    plan: { hash: planHash(plan), prompt_set_id: plan.identity.prompt_set_id, requests: records, warmup: null },
    shard: {
      index,
      count,
      host: `bench-${index}`,
      pid: 10_000 + index,
      part_requests: part,
      slots: 2,
      rule: { kind: 'closed-slots', concurrency },
    },
    clock: { source: 'redis-time', offset_ms: 0.4, uncertainty_ms: 0.15, rtt_ms: 0.3, samples: 8 },
    start: {
      mode: 'rendezvous',
      planned_reference_ms: t0,
      run_start_local_ms: t0 + index * 0.01 - 0.4,
      run_start_reference_ms: t0 + index * 0.01,
      late_ms: index * 0.01,
      join: null,
    },
    run: runHeader(plan, {
      baseUrl: 'http://127.0.0.1:9/v1',
      startedAt: new Date(t0),
      embeddedSimulator: false,
      toolVersion: '0.1.0',
      nodeVersion: process.version,
      host: `bench-${index}`,
    }),
  };
  const random = generator(index + 1);
  const slotFree = new Map<number, number>();
  const writer = new ShardFileWriter(file, header);
  let wallMs = 0;
  for (let i = index; i < records; i += count) {
    const slot = i % concurrency;
    const start = (slotFree.get(slot) ?? 0) + 0.5 * random();
    const result = record(i, start, random);
    const endMs = start + 1000 * (result.e2eS ?? result.error!.atS);
    slotFree.set(slot, endMs);
    wallMs = Math.max(wallMs, endMs);
    writer.append(result);
  }
  writer.finish({
    wall_s: wallMs / 1000,
    finished_at: new Date(t0 + wallMs).toISOString().replace(/\.\d+Z$/, 'Z'),
    interrupted: false,
    client: null,
    workers: null,
    prompt_set_id: plan.identity.prompt_set_id ?? 'unknown',
  });
  return part;
}

/** The baseline, run as a child: read every line of every file and `JSON.parse` it, keeping nothing. */
async function parseEveryLine(files: readonly string[]): Promise<void> {
  let lines = 0;
  for (const file of files) {
    const input = createReadStream(file, { encoding: 'utf8', highWaterMark: 1024 * 1024 });
    const reader = createInterface({ input, crlfDelay: Infinity });
    reader.on('line', (line) => {
      if (line !== '') {
        JSON.parse(line);
        lines++;
      }
    });
    await once(reader, 'close');
  }
  process.stdout.write(`${lines}\n`);
}

const SELF = fileURLToPath(import.meta.url);

interface Figures {
  shards: number;
  records: number;
  run: ClientRun;
  ok: boolean;
}

const mib = (x: number | null): string =>
  x === null ? '?' : `${x.toFixed(0)} MiB (${((x * 2 ** 20) / 1e9).toFixed(2)} GB)`;

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

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--parse-only') return parseEveryLine(argv.slice(1));
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
    const files: string[] = [];
    const perShard: number[] = [];
    let bytes = 0;
    for (let index = 0; index < shards; index++) {
      const file = join(dir, `shard-${String(index).padStart(3, '0')}.ndjson`);
      perShard.push(writeShard(file, plan, records, index, shards, t0));
      bytes += statSync(file).size;
      files.push(file);
    }
    const genS = Number(process.hrtime.bigint() - generated) / 1e9;
    console.log(
      `generated ${records} records in ${shards} shard files (${(bytes / 1e9).toFixed(2)} GB, ${(bytes / records).toFixed(0)} bytes a record) in ${genS.toFixed(1)} s`,
    );
    console.log(`goal: under ${GOAL.seconds} s and under ${GOAL.rssBytes / 1e9} GB peak RSS; ${process.version}`);
    const timeoutMs = options.timeoutS * 1000;
    const measure = async (count: number, merge: boolean): Promise<Figures> => {
      const chosen = files.slice(0, count);
      const n = perShard.slice(0, count).reduce((a, b) => a + b, 0);
      const output = join(dir, `merged-${count}.json`);
      const args = merge
        ? [
            ...(options.cpuProfDir === null ? [] : ['--cpu-prof', '--cpu-prof-dir', options.cpuProfDir]),
            CLI_PATH,
            'merge',
            ...chosen,
            '--output',
            output,
            ...(count < shards ? ['--allow-partial'] : []),
          ]
        : [SELF, '--parse-only', ...chosen];
      const run = await runMeasured(process.execPath, args, timeoutMs);
      // merge exits 1 when some requests failed (these files hold failures): still a merged result.
      const ok = merge
        ? (run.code === 0 || run.code === 1) && statSync(output, { throwIfNoEntry: false }) !== undefined
        : run.code === 0 && Number(run.stdout.trim()) === n + 2 * count;
      if (merge && ok) {
        const size = statSync(output).size;
        rmSync(output);
        console.log(`  merged result: ${(size / 1e9).toFixed(2)} GB`);
      }
      if (!ok)
        console.log(`  ${merge ? 'merge' : 'baseline'} failed: ${failureLine(run.stderr) || `exit ${run.code}`}`);
      return { shards: count, records: n, run, ok };
    };
    const baseline = await measure(shards, false);
    console.log(line('baseline', baseline, null));
    let count = shards;
    let merged = await measure(count, true);
    console.log(line('merge', merged, baseline));
    while (!merged.ok && count > 1) {
      count = Math.ceil(count / 2);
      merged = await measure(count, true);
      const base = await measure(count, false);
      console.log(line('baseline', base, null));
      console.log(line('merge', merged, base));
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
