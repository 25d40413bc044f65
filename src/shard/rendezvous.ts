/**
 * Synchronized start of the N shards of one plan, through a Redis server every shard can reach.
 *
 * Protocol (state and scripts in rendezvous-script.ts; every step that reads and writes the
 * shared state is one Lua script, atomic on the server):
 * 1. Connect (`connectRendezvous`): TCP/TLS, AUTH, PING, bounded; nothing is written. A shard
 *    that cannot reach Redis fails here, before it sends any benchmark request.
 * 2. Measure the clock (`join`): two PINGs warm the connection, then batches of 8 `TIME` round
 *    trips until the minimum-RTT estimate's uncertainty is within `maxUncertaintyMs` (at most 3
 *    batches). A shard still over the bound is refused before it joins, so it takes no slot and
 *    the others cannot start without it unnoticed (they time out, naming the count).
 * 3. Join (one script): refused if the start was already chosen (a late shard), if the plan hash
 *    or the shard count differs from the first shard's (stored by that first join), if this index
 *    already joined, or if N already joined. Otherwise the join takes its order (INCR) and, if it
 *    is the N-th, fixes the start: Redis `TIME` + the lead. The lead is the first shard's
 *    `leadMs` when it gave one, otherwise max(1000 ms, 40 × the largest RTT any joined shard saw),
 *    time for every shard to notice (a poll every 25 ms) and to measure its clock again. The start
 *    is fixed by whichever join completes the set, on the first shard's terms, so no shard has to
 *    stay alive to announce it and nothing waits on a poll to choose it.
 * 4. Wait for the start (poll every 25 ms), bounded by `timeoutS` from the join call; on timeout
 *    or interrupt before the start the shard takes its entry back (so a restarted shard may join
 *    again) and fails with the count that joined.
 * 5. Measure the clock again (as in 2): the wait may have lasted minutes, and two clocks drift
 *    apart by tens of µs per second, so the offset the start uses is the one measured just
 *    before it. Over the bound now, the shard is refused (the others start without it, and the
 *    merge sees a missing shard rather than a badly aligned one).
 * 6. `waitForStart` sleeps until start − offset on the local wall clock, then spins the last 2 ms.
 * Keys expire 24 h after the last join (longer when the timeout is longer), so a NAME serves one
 * run: a second run under the same name is refused as late until they expire.
 * The password is given to the client library only; no message or error here ever holds it.
 */
import { isIP } from 'node:net';
import type { Redis } from 'ioredis';
import { unlessAborted } from '../util/cooperate.js';
import { InterruptedError, UsageError } from '../util/errors.js';
import { offsetFromSamples, redisTimeToMs, type ClockOffsetEstimate, type ClockSample } from './clock-offset.js';
import { parseRendezvousUrl, type RendezvousAddress } from './rendezvous-url.js';
import {
  decodeJoinReply,
  decodePollReply,
  JOIN_SCRIPT,
  LEAVE_SCRIPT,
  POLL_SCRIPT,
  rendezvousKeys,
  type RendezvousKeys,
} from './rendezvous-script.js';
import { localWallMs, waitUntilWallMs } from './wait-until.js';
import type { ClockAlignment } from './shard-file.js';

/** How this process's wall clock maps to the reference clock (the shard file records it). */
export type { ClockAlignment };

export interface StartGate {
  /** How this process's wall clock maps to the reference clock. */
  clock: ClockAlignment;
  /** The common start on the reference clock (epoch ms), null = start at once. */
  startReferenceMs: number | null;
  /**
   * Rendezvous facts, null without Redis: the join's order (1 for the first), its time on the
   * reference clock, and how long it waited for the others (reference ms from its join until the
   * N-th join fixed the start; 0 for the shard that completed the set).
   */
  join: { order: number; joined_reference_ms: number; waited_ms: number } | null;
  /** Resolves at the start instant (sleep, then spin on performance.now() for the last ~2 ms), with how late it woke (ms, ≥ 0). */
  waitForStart(signal?: AbortSignal): Promise<{ lateMs: number }>;
  close(): Promise<void>;
}

export interface JoinOptions {
  /** 0-based, as in `--shard I/N`. */
  shardIndex: number;
  shardCount: number;
  planHash: string;
  /** This shard's host name, kept with its entry (shown when the index is taken twice). */
  host: string;
  /** How long to wait for all N shards, from the call. */
  timeoutS: number;
  /** A shard whose clock offset is less certain than this (ms) refuses to start. */
  maxUncertaintyMs: number;
  /** The first shard's lead from the N-th join to the start (ms); default: see the protocol above. */
  leadMs?: number;
  signal?: AbortSignal;
}

/** An open, checked connection to the rendezvous's Redis server. */
export interface RendezvousConnection {
  /** The address without its password. */
  readonly display: string;
  /**
   * Joins the rendezvous and resolves once the start is fixed and this shard's clock is measured.
   * Every refusal is a {@link RendezvousError}; an abort is an {@link InterruptedError}. The
   * connection is closed when this rejects; when it resolves, the gate's `close` closes it.
   */
  join(options: JoinOptions): Promise<StartGate>;
  close(): Promise<void>;
}

/** Any failure of the rendezvous: one line, exit 2 as any usage error, never the password. */
export class RendezvousError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'RendezvousError';
  }
}

const TTL_S = 24 * 3600;
const CLOCK_ROUNDS = 8;
const CLOCK_BATCHES = 3;
const WARM_PINGS = 2;
const POLL_MS = 25;
/** `--rendezvous-timeout`'s default: how long a shard waits for the others, seconds. */
export const DEFAULT_RENDEZVOUS_TIMEOUT_S = 300;
/** `--max-clock-uncertainty`'s default, ms: a few ms is what a zone away costs (docs/kubernetes.md). */
export const DEFAULT_MAX_CLOCK_UNCERTAINTY_MS = 10;

const DEFAULT_LEAD_FLOOR_MS = 1000;
const DEFAULT_LEAD_RTT_MULTIPLE = 40;
/** Taking an entry back on the way out is best effort, and must not hold the exit up. */
const LEAVE_BOUND_MS = 2000;
const REASON_LIMIT = 160;
const COMMAND_BOUND_MS = 10_000;

/**
 * Connects to the Redis server of `address` and checks it answers (AUTH when the address has a
 * password, then PING), within `timeoutS`. Unreachable, refused or not authorized: a
 * {@link RendezvousError} `--rendezvous <display>: cannot reach Redis (<reason>)`.
 */
export async function connectRendezvous(
  address: RendezvousAddress | string,
  options: { timeoutS: number; signal?: AbortSignal },
): Promise<RendezvousConnection> {
  const parsed = typeof address === 'string' ? parseRendezvousUrl(address) : address;
  const { connection, display } = parsed;
  if (!(options.timeoutS > 0)) throw new RangeError(`connectRendezvous: bad timeoutS ${options.timeoutS}`);
  if (options.signal?.aborted === true) throw new InterruptedError();
  const boundMs = options.timeoutS * 1000;
  let lastError: string | null = null;
  // Loaded here, when a rendezvous is asked for: a run without one never loads the client
  // (docs/architecture.md, "Loading").
  const { Redis: RedisClient } = await import('ioredis');
  const redis = new RedisClient({
    host: connection.host,
    port: connection.port,
    ...(connection.username === undefined ? {} : { username: connection.username }),
    ...(connection.password === undefined ? {} : { password: connection.password }),
    ...(connection.tls ? { tls: isIP(connection.host) === 0 ? { servername: connection.host } : {} } : {}),
    // RESP2: every server version, and no HELLO whose long NOAUTH text would become the reason.
    protocol: 2,
    lazyConnect: true,
    // One attempt, bounded: a reconnect would hide an unreachable server behind a long wait, and
    // a connection lost mid-rendezvous must fail the shard, not resume with unknown state.
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    enableReadyCheck: false,
    connectTimeout: boundMs,
    // Each command is tiny: one that hangs this long means a server that stopped answering.
    commandTimeout: Math.min(boundMs, COMMAND_BOUND_MS),
  });
  // Without a listener the library prints errors itself; they are kept for the one message.
  redis.on('error', (error: Error) => (lastError = error.message));
  const reason = (error: unknown): string => oneLine(lastError ?? messageOf(error), connection.password);
  try {
    await bounded(
      redis.connect().then(() => redis.ping()),
      boundMs,
      options.signal,
    );
  } catch (error) {
    redis.disconnect();
    if (error instanceof InterruptedError) throw error;
    const why = error instanceof BoundExceeded ? `no answer within ${options.timeoutS} s` : reason(error);
    throw new RendezvousError(`--rendezvous ${display}: cannot reach Redis (${why})`);
  }
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    try {
      await bounded(redis.quit(), LEAVE_BOUND_MS, undefined);
    } catch {
      // Already gone, or slow to say goodbye: the socket is dropped below either way.
    }
    redis.disconnect();
  };
  return {
    display,
    close,
    join: async (joinOptions) => {
      try {
        return await joinRendezvous(redis, parsed, joinOptions, close);
      } catch (error) {
        await close();
        if (error instanceof InterruptedError || error instanceof UsageError || error instanceof RangeError)
          throw error;
        throw new RendezvousError(`--rendezvous ${display}: Redis failed during the rendezvous (${reason(error)})`);
      }
    },
  };
}

/** A gate without Redis: `--start-at` (a start on the local clock) or no synchronization (null: at once). */
export function localStartGate(startAtMs: number | null): StartGate {
  return {
    clock: { source: 'local-clock', offset_ms: 0, uncertainty_ms: null, rtt_ms: null, samples: 0 },
    startReferenceMs: startAtMs,
    join: null,
    waitForStart: async (signal) => {
      if (startAtMs === null) {
        if (signal?.aborted === true) throw new InterruptedError();
        return { lateMs: 0 };
      }
      return waitUntilWallMs(startAtMs, signal);
    },
    close: () => Promise.resolve(),
  };
}

async function joinRendezvous(
  redis: Redis,
  address: RendezvousAddress,
  options: JoinOptions,
  close: () => Promise<void>,
): Promise<StartGate> {
  checkJoinOptions(options);
  const { shardIndex, shardCount, planHash, host, timeoutS, maxUncertaintyMs, signal } = options;
  const deadline = performance.now() + timeoutS * 1000;
  const shard = `shard ${shardIndex}/${shardCount}`;
  const refuse = (why: string): RendezvousError =>
    new RendezvousError(`--rendezvous ${address.display}: ${shard} ${why}`);
  const keys = rendezvousKeys(address.name);
  const call = <T>(work: Promise<T>): Promise<T> => unlessAborted(work, signal);

  for (let i = 0; i < WARM_PINGS; i++) await call(redis.ping());
  const before = await measureClock(redis, maxUncertaintyMs, signal);
  if (before.estimate.uncertainty_ms > maxUncertaintyMs)
    throw refuse(uncertaintyWhy(before.estimate, maxUncertaintyMs, false));

  // Not raced against the signal: a join that ran on the server must be known, to be taken back.
  const reply = decodeJoinReply(
    await redis.eval(
      JOIN_SCRIPT,
      3,
      keys.meta,
      keys.joined,
      keys.order,
      String(shardIndex),
      String(shardCount),
      planHash,
      host,
      options.leadMs === undefined ? '' : String(options.leadMs),
      before.maxRttMs.toFixed(3),
      String(Math.max(TTL_S, Math.ceil(2 * timeoutS))),
      String(DEFAULT_LEAD_FLOOR_MS),
      String(DEFAULT_LEAD_RTT_MULTIPLE),
    ),
  );
  switch (reply.kind) {
    case 'started':
      throw refuse(
        `joined after the start was chosen (${isoOrRaw(reply.startReferenceMs)}): a late shard is refused, not merged (a new run needs a new NAME)`,
      );
    case 'plan':
      throw refuse(
        `has plan hash ${planHash}, but this rendezvous is for plan hash ${reply.heldPlanHash}: every shard must run the same plan`,
      );
    case 'count':
      throw refuse(`expects ${shardCount} shards, but this rendezvous holds shard count ${reply.heldShardCount}`);
    case 'duplicate': {
      const held = [
        reply.heldOrder === null ? null : `order ${reply.heldOrder}`,
        reply.heldHost === null ? null : `host ${reply.heldHost}`,
      ];
      const detail = held.filter((part) => part !== null).join(', ');
      throw refuse(`already joined this rendezvous${detail === '' ? '' : ` (${detail})`}: a shard index joins once`);
    }
    case 'full':
      throw refuse(`refused: all ${shardCount} shards already joined`);
    case 'ended':
      throw refuse(`refused: this rendezvous ended before its start (${reply.why}); a new run needs a new NAME`);
    case 'joined':
      break;
  }

  const { order, joinedReferenceMs } = reply;
  if (signal?.aborted === true) {
    await leave(redis, keys, shardIndex, order);
    throw new InterruptedError();
  }
  let startReferenceMs = reply.startReferenceMs;
  let chosenReferenceMs = startReferenceMs === null ? null : joinedReferenceMs;
  let joinedCount = 0;
  try {
    while (startReferenceMs === null) {
      const poll = decodePollReply(await call(redis.eval(POLL_SCRIPT, 2, keys.meta, keys.joined)));
      joinedCount = poll.joined;
      if (poll.ended !== null && poll.startReferenceMs === null) {
        await leave(redis, keys, shardIndex, order);
        throw refuse(`left: the rendezvous ended before its start (${poll.ended}); no start can come`);
      }
      if (poll.startReferenceMs !== null) {
        startReferenceMs = poll.startReferenceMs;
        chosenReferenceMs = poll.chosenReferenceMs;
        break;
      }
      const left = deadline - performance.now();
      if (left <= 0) {
        // Everyone may have joined in the meantime: then the start stands and this shard is in it.
        if ((await leave(redis, keys, shardIndex, order)) === 'started') continue;
        throw new RendezvousError(
          `--rendezvous ${address.display}: only ${joinedCount} of ${shardCount} shards joined within ${timeoutS} s (${shard} gave up and left)`,
        );
      }
      await sleep(Math.min(POLL_MS, left), signal);
    }
  } catch (error) {
    if (error instanceof InterruptedError) await leave(redis, keys, shardIndex, order).catch(() => undefined);
    throw error;
  }

  const after = await measureClock(redis, maxUncertaintyMs, signal);
  if (after.estimate.uncertainty_ms > maxUncertaintyMs)
    throw refuse(uncertaintyWhy(after.estimate, maxUncertaintyMs, true));
  const { offset_ms, uncertainty_ms, rtt_ms, samples } = after.estimate;
  const start = startReferenceMs;
  return {
    clock: { source: 'redis-time', offset_ms, uncertainty_ms, rtt_ms, samples },
    startReferenceMs: start,
    join: {
      order,
      joined_reference_ms: joinedReferenceMs,
      waited_ms: Math.max(0, (chosenReferenceMs ?? joinedReferenceMs) - joinedReferenceMs),
    },
    // reference ≈ local + offset, so the reference instant `start` is local `start − offset`.
    waitForStart: (waitSignal) => waitUntilWallMs(start - offset_ms, waitSignal),
    close,
  };
}

function checkJoinOptions(options: JoinOptions): void {
  const { shardIndex, shardCount, timeoutS, maxUncertaintyMs, leadMs, planHash } = options;
  if (!Number.isInteger(shardCount) || shardCount < 1) throw new RangeError(`join: bad shardCount ${shardCount}`);
  if (!Number.isInteger(shardIndex) || shardIndex < 0 || shardIndex >= shardCount) {
    throw new RangeError(`join: bad shardIndex ${shardIndex} of ${shardCount}`);
  }
  if (!(timeoutS > 0) || !Number.isFinite(timeoutS)) throw new RangeError(`join: bad timeoutS ${timeoutS}`);
  if (!(maxUncertaintyMs >= 0)) throw new RangeError(`join: bad maxUncertaintyMs ${maxUncertaintyMs}`);
  if (leadMs !== undefined && (!(leadMs >= 0) || !Number.isFinite(leadMs)))
    throw new RangeError(`join: bad leadMs ${leadMs}`);
  if (planHash === '') throw new RangeError('join: empty planHash');
}

/** Batches of TIME round trips until the estimate is within the bound (or the batches run out). */
async function measureClock(
  redis: Redis,
  maxUncertaintyMs: number,
  signal: AbortSignal | undefined,
): Promise<{ estimate: ClockOffsetEstimate; maxRttMs: number }> {
  const samples: ClockSample[] = [];
  let estimate: ClockOffsetEstimate | null = null;
  for (let batch = 0; batch < CLOCK_BATCHES; batch++) {
    for (let i = 0; i < CLOCK_ROUNDS; i++) {
      const sentMs = localWallMs();
      const reply = await unlessAborted(redis.time(), signal);
      const receivedMs = localWallMs();
      samples.push({ sentMs, referenceMs: redisTimeToMs(reply.map(String)), receivedMs });
    }
    estimate = offsetFromSamples(samples);
    if (estimate.uncertainty_ms <= maxUncertaintyMs) break;
  }
  const maxRttMs = Math.max(...samples.map((s) => s.receivedMs - s.sentMs));
  return { estimate: estimate!, maxRttMs };
}

function uncertaintyWhy(estimate: ClockOffsetEstimate, maxUncertaintyMs: number, afterStart: boolean): string {
  const facts = `min RTT ${estimate.rtt_ms.toFixed(3)} ms over ${estimate.samples} TIME round trips`;
  const tail = afterStart ? '; the other shards start without it' : '';
  return `refused: clock offset uncertainty ${estimate.uncertainty_ms.toFixed(3)} ms exceeds --max-clock-uncertainty ${maxUncertaintyMs} ms (${facts})${tail}`;
}

/** Takes this shard's entry back (before the start only); bounded, and never the reason a shard fails. */
async function leave(redis: Redis, keys: RendezvousKeys, shardIndex: number, order: number): Promise<string> {
  try {
    const reply = await bounded(
      redis.eval(LEAVE_SCRIPT, 3, keys.meta, keys.joined, keys.order, String(shardIndex), String(order)),
      LEAVE_BOUND_MS,
      undefined,
    );
    return String(reply);
  } catch {
    return 'unknown';
  }
}

class BoundExceeded extends Error {}

/** `work` within `ms`, or a BoundExceeded; an InterruptedError when `signal` aborts first. */
function bounded<T>(work: Promise<T>, ms: number, signal: AbortSignal | undefined): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BoundExceeded()), ms);
  });
  work.catch(() => undefined);
  return unlessAborted(Promise.race([work, expiry]), signal).finally(() => clearTimeout(timer));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return unlessAborted(new Promise<void>((resolve) => setTimeout(resolve, ms)), signal);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A reason from the network or the server as one bounded line, with the password masked should a server ever echo it. */
function oneLine(text: string, password: string | undefined): string {
  let line = text.split(/\r?\n/, 1)[0] ?? '';
  if (password !== undefined && password !== '') line = line.split(password).join('***');
  return line.length > REASON_LIMIT ? `${line.slice(0, REASON_LIMIT)}…` : line;
}

function isoOrRaw(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : `start ${date.toISOString()}`;
}
