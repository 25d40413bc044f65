/**
 * The shard flags of `servebench run` (`--shard`, `--shards` and the rendezvous and start flags),
 * read and checked apart from the shard runners, so a plain `run` loads neither the runners nor
 * Redis's client (they are imported only when --shard or --shards is given; docs/architecture.md,
 * "Loading").
 */
import type { FlagValue } from '../config/flag-value.js';
import { UsageError } from '../util/errors.js';

/** The shard-run flags as the run command parsed them. */
export interface ShardFlags {
  shard: string;
  rendezvous: string | null;
  rendezvousTimeoutS: number;
  startAt: string | null;
  maxClockUncertaintyMs: number;
}

/** Reads the shard flags; refuses the combinations a shard cannot honour, in one line. */
export function shardFlags(values: Record<string, FlagValue>, given: ReadonlySet<string>): ShardFlags | null {
  const text = (name: string): string | null => (typeof values[name] === 'string' ? values[name] : null);
  const shard = text('shard');
  // A shard sees only its share of the load but the server's counters count all of it: auto is
  // simply off in a sharded run, and a URL asked for is refused rather than recorded wrongly.
  const metrics = text('server-metrics');
  if ((shard !== null || given.has('shards')) && given.has('server-metrics') && metrics !== 'auto' && metrics !== 'off')
    throw new UsageError(
      `--server-metrics URL does not apply with --${shard !== null ? 'shard' : 'shards'}: each shard would count the whole server's traffic as its own (scrape the server beside the run instead)`,
    );
  if (given.has('shards'))
    for (const name of ['journal', 'dry-run', 'rendezvous', 'start-at', 'max-clock-uncertainty', 'rendezvous-timeout'])
      if (given.has(name))
        throw new UsageError(
          `--${name} does not apply with --shards: the shards meet through this process and journal in its temporary folder`,
        );
  if (shard === null) {
    for (const name of ['rendezvous', 'rendezvous-timeout', 'start-at', 'max-clock-uncertainty'])
      if (given.has(name)) throw new UsageError(`--${name} applies only with --shard I/N`);
    return null;
  }
  if (given.has('shards')) throw new UsageError('--shard and --shards cannot be given together');
  for (const name of ['report', 'json', 'dry-run'])
    if (given.has(name))
      throw new UsageError(
        `--${name} does not apply with --shard: a shard writes a shard file, merge writes the result`,
      );
  if (text('rendezvous') !== null && text('start-at') !== null)
    throw new UsageError('--rendezvous and --start-at cannot be given together: the rendezvous chooses the start');
  if (text('output') === null)
    throw new UsageError('--shard needs --output FILE: where to write the shard file for servebench merge');
  return {
    shard,
    rendezvous: text('rendezvous'),
    rendezvousTimeoutS: Number(values['rendezvous-timeout']),
    startAt: text('start-at'),
    maxClockUncertaintyMs: Number(values['max-clock-uncertainty']),
  };
}
