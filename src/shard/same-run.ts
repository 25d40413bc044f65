/**
 * Do these shard files belong to one run of one plan? Fail closed: the first field that differs
 * between the first file and another is named, with both values, and nothing is merged. The
 * fields a shard may have of its own (host, process, clock, start, connections, run id and start
 * time) are the only ones left out.
 */
import { isDeepStrictEqual } from 'node:util';
import { UsageError } from '../util/errors.js';
import type { ShardHeader } from './shard-file.js';

/** Header fields every shard must share, by the name merge gives them in its refusal. */
const SHARED_FIELDS: readonly [string, (header: ShardHeader) => unknown][] = [
  ['the plan hash (plan.hash)', (h) => h.plan.hash],
  ['prompt_set_id (plan.prompt_set_id)', (h) => h.plan.prompt_set_id],
  ['the shard count (shard.count)', (h) => h.shard.count],
  ['the plan request count (plan.requests)', (h) => h.plan.requests],
  ['the warm-up (plan.warmup)', (h) => h.plan.warmup],
  ['how requests are split (shard.rule)', (h) => h.shard.rule],
];

/** `run.meta` keys a shard sets for itself (`runId` and `startedAt` in an earlier version's header). */
const OWN_META = new Set(['run_id', 'started_at', 'runId', 'startedAt']);
/** `run.servebench` keys a shard sets for itself. */
const OWN_SERVEBENCH = new Set(['host', 'node_version', 'connections', 'client_priority', 'helper_threads', 'clock']);

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function refuse(field: string, firstFile: string, first: unknown, file: string, value: unknown): never {
  throw new UsageError(
    `merge: ${file} is not a shard of the same run as ${firstFile}: ${field} differs (${show(value)} vs ${show(first)})`,
  );
}

function compareObjects(
  label: string,
  own: ReadonlySet<string>,
  firstFile: string,
  first: Record<string, unknown>,
  file: string,
  other: Record<string, unknown>,
): void {
  const keys = [...new Set([...Object.keys(first), ...Object.keys(other)])].filter((k) => !own.has(k)).sort();
  for (const key of keys)
    if (!isDeepStrictEqual(first[key], other[key])) refuse(`${label}.${key}`, firstFile, first[key], file, other[key]);
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/** @throws UsageError naming the first file and field that differ from the first file's. */
export function checkSameRun(headers: readonly { file: string; header: ShardHeader }[]): void {
  const [first, ...rest] = headers;
  if (first === undefined) return;
  for (const { file, header } of rest) {
    for (const [field, read] of SHARED_FIELDS)
      if (!isDeepStrictEqual(read(first.header), read(header)))
        refuse(field, first.file, read(first.header), file, read(header));
    const a = first.header.run;
    const b = header.run;
    compareObjects('run.meta', OWN_META, first.file, record(a['meta']), file, record(b['meta']));
    compareObjects(
      'run.servebench',
      OWN_SERVEBENCH,
      first.file,
      record(a['servebench']),
      file,
      record(b['servebench']),
    );
    const clockA = record(record(a['servebench'])['clock'])['t0'];
    const clockB = record(record(b['servebench'])['clock'])['t0'];
    if (clockA !== clockB) refuse('run.servebench.clock.t0', first.file, clockA, file, clockB);
    // The plan's own slices (assemble/header.ts); `promptMethod` and `enforceCalibration` are an earlier version's names.
    for (const key of ['promptMethod', 'enforceCalibration', 'enforce_calibration', 'shape', 'client'])
      if (!isDeepStrictEqual(a[key], b[key])) refuse(`run.${key}`, first.file, a[key], file, b[key]);
  }
}
