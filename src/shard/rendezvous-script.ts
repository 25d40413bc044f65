/**
 * The rendezvous's state in Redis and the Lua scripts that change it. Each script runs atomically
 * on the server (no other command runs in between), so two shards joining at the same moment
 * cannot both be "first", both take index 2, or slip in after the start was fixed. Times are the
 * server's own `TIME`, read inside the script, kept as decimal strings with 3 decimals (µs):
 * a Lua number returned to a client is cut to an integer, and cjson would round it to 14 digits.
 *
 * Keys (all expire TTL after the last join):
 * - `servebench:<NAME>:rendezvous` (hash): plan_hash, shard_count, lead_ms ('' = the default
 *   rule), created_reference_ms, rtt_max_ms, and once all N joined start_reference_ms and
 *   chosen_reference_ms; `ended`, why, once a shard of another plan or shard count was refused
 *   before the start (no start can come: every shard waiting ends at once, naming it);
 * - `servebench:<NAME>:joined` (hash): shard index → JSON {order, host, joined_reference_ms, rtt_max_ms};
 * - `servebench:<NAME>:order` (counter): INCR gives each join its order, 1 for the first.
 */

export interface RendezvousKeys {
  meta: string;
  joined: string;
  order: string;
}

export function rendezvousKeys(name: string): RendezvousKeys {
  const prefix = `servebench:${name}:`;
  return { meta: `${prefix}rendezvous`, joined: `${prefix}joined`, order: `${prefix}order` };
}

/**
 * ARGV: index, shard count, plan hash, host, lead ms ('' = default), this shard's largest RTT (ms),
 * TTL (s), the default lead's floor (ms), the default lead's multiple of the largest RTT.
 * Returns one of: {'joined', order, joined_reference_ms, start_reference_ms or ''},
 * {'started', start_reference_ms, chosen_reference_ms}, {'plan', held plan hash},
 * {'count', held shard count}, {'duplicate', the held entry JSON}, {'full', joined count},
 * {'ended', why}. A refusal for another plan or shard count also ends the rendezvous (`ended`).
 */
export const JOIN_SCRIPT = `
local meta, joined, orderKey = KEYS[1], KEYS[2], KEYS[3]
local index, count, plan, host = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local rtt, ttl = tonumber(ARGV[6]), tonumber(ARGV[7])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local nowText = string.format('%.3f', now)
local held = redis.call('HMGET', meta, 'plan_hash', 'shard_count', 'start_reference_ms', 'chosen_reference_ms')
if held[3] then return {'started', held[3], held[4] or ''} end
local ended = redis.call('HGET', meta, 'ended')
if ended then return {'ended', ended} end
local who = 'shard ' .. index .. '/' .. ARGV[2] .. ' on ' .. host
if held[1] then
  if held[1] ~= plan then
    redis.call('HSET', meta, 'ended', who .. ' has plan hash ' .. plan .. ', not ' .. held[1])
    return {'plan', held[1]}
  end
  if tonumber(held[2]) ~= count then
    redis.call('HSET', meta, 'ended', who .. ' expects ' .. ARGV[2] .. ' shards, not ' .. held[2])
    return {'count', held[2]}
  end
end
local mine = redis.call('HGET', joined, index)
if mine then return {'duplicate', mine} end
local n = redis.call('HLEN', joined)
if n >= count then return {'full', tostring(n)} end
if not held[1] then
  redis.call('HSET', meta, 'plan_hash', plan, 'shard_count', ARGV[2], 'lead_ms', ARGV[5], 'created_reference_ms', nowText, 'rtt_max_ms', '0')
end
local rttMax = tonumber(redis.call('HGET', meta, 'rtt_max_ms') or '0')
if rtt > rttMax then
  rttMax = rtt
  redis.call('HSET', meta, 'rtt_max_ms', ARGV[6])
end
local order = redis.call('INCR', orderKey)
redis.call('HSET', joined, index, cjson.encode({order = order, host = host, joined_reference_ms = nowText, rtt_max_ms = ARGV[6]}))
local start = ''
if n + 1 == count then
  local lead = tonumber(redis.call('HGET', meta, 'lead_ms'))
  if lead == nil then lead = math.max(tonumber(ARGV[8]), tonumber(ARGV[9]) * rttMax) end
  start = string.format('%.3f', now + lead)
  redis.call('HSET', meta, 'start_reference_ms', start, 'chosen_reference_ms', nowText)
end
redis.call('EXPIRE', meta, ttl)
redis.call('EXPIRE', joined, ttl)
redis.call('EXPIRE', orderKey, ttl)
return {'joined', tostring(order), nowText, start}
`;

/**
 * KEYS: meta, joined, order. ARGV: index, order. A shard that gives up before the start (timeout, interrupt) takes its entry
 * back, so a restarted one may join again; once the last one left the name is free for another
 * plan. After the start nothing is undone: the start is a fact the others act on.
 * Returns 'left', 'started', or 'absent' (not ours, or already gone).
 */
export const LEAVE_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], 'start_reference_ms') == 1 then return 'started' end
local mine = redis.call('HGET', KEYS[2], ARGV[1])
if not mine or cjson.decode(mine).order ~= tonumber(ARGV[2]) then return 'absent' end
redis.call('HDEL', KEYS[2], ARGV[1])
if redis.call('HLEN', KEYS[2]) == 0 then redis.call('DEL', KEYS[1], KEYS[2], KEYS[3]) end
return 'left'
`;

/** Returns {start_reference_ms or '', chosen_reference_ms or '', joined count, ended or ''}: one consistent read. */
export const POLL_SCRIPT = `
return {redis.call('HGET', KEYS[1], 'start_reference_ms') or '', redis.call('HGET', KEYS[1], 'chosen_reference_ms') or '', tostring(redis.call('HLEN', KEYS[2])), redis.call('HGET', KEYS[1], 'ended') or ''}
`;

export type JoinReply =
  | { kind: 'joined'; order: number; joinedReferenceMs: number; startReferenceMs: number | null }
  | { kind: 'started'; startReferenceMs: number; chosenReferenceMs: number | null }
  | { kind: 'plan'; heldPlanHash: string }
  | { kind: 'count'; heldShardCount: string }
  | { kind: 'duplicate'; heldHost: string | null; heldOrder: number | null }
  | { kind: 'full'; joined: number }
  | { kind: 'ended'; why: string };

/** The join script's reply as data; anything else is a RangeError (not our script's reply). */
export function decodeJoinReply(reply: unknown): JoinReply {
  const parts = strings(reply);
  const [kind, a = '', b = '', c = ''] = parts;
  switch (kind) {
    case 'joined':
      return { kind, order: Number(a), joinedReferenceMs: Number(b), startReferenceMs: c === '' ? null : Number(c) };
    case 'started':
      return { kind, startReferenceMs: Number(a), chosenReferenceMs: b === '' ? null : Number(b) };
    case 'plan':
      return { kind, heldPlanHash: a };
    case 'count':
      return { kind, heldShardCount: a };
    case 'duplicate': {
      const entry = parseEntry(a);
      return { kind, heldHost: entry.host, heldOrder: entry.order };
    }
    case 'full':
      return { kind, joined: Number(a) };
    case 'ended':
      return { kind, why: a };
    default:
      throw new RangeError(`unexpected rendezvous reply ${JSON.stringify(reply)}`);
  }
}

export interface PollReply {
  startReferenceMs: number | null;
  chosenReferenceMs: number | null;
  joined: number;
  /** Why the rendezvous ended before the start (a refused shard of another plan), or null. */
  ended: string | null;
}

export function decodePollReply(reply: unknown): PollReply {
  const [start = '', chosen = '', joined = '0', ended = ''] = strings(reply);
  return {
    startReferenceMs: start === '' ? null : Number(start),
    chosenReferenceMs: chosen === '' ? null : Number(chosen),
    joined: Number(joined),
    ended: ended === '' ? null : ended,
  };
}

function strings(reply: unknown): string[] {
  if (!Array.isArray(reply)) throw new RangeError(`unexpected rendezvous reply ${JSON.stringify(reply)}`);
  return reply.map((part: unknown) => (part === null ? '' : String(part)));
}

function parseEntry(json: string): { host: string | null; order: number | null } {
  try {
    const entry = JSON.parse(json) as { host?: unknown; order?: unknown };
    return {
      host: typeof entry.host === 'string' ? entry.host : null,
      order: typeof entry.order === 'number' ? entry.order : null,
    };
  } catch {
    return { host: null, order: null };
  }
}
