/**
 * The rendezvous against a real redis-server started by this file on 127.0.0.1 (stopped by its
 * PID): shards on separate connections, as separate processes would be. Timing is asserted only
 * loosely (wakes within 200 ms of each other, a refused connection well within its bound).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { connectRendezvous, localStartGate, RendezvousError, type JoinOptions } from '../../src/shard/rendezvous.js';
import { InterruptedError, UsageError } from '../../src/util/errors.js';
import { freePort, startRedisServer, type RedisServer } from '../helpers/redis-server.js';

let server: RedisServer;
let secured: RedisServer;
const PASSWORD = 'pw-Zx81-never-shown';

before(async () => {
  server = await startRedisServer();
  secured = await startRedisServer({ password: PASSWORD });
});
after(async () => {
  await server.stop();
  await secured.stop();
});

let names = 0;
function freshName(): string {
  return `t${process.pid}-${names++}`;
}

function options(shardIndex: number, shardCount: number, extra: Partial<JoinOptions> = {}): JoinOptions {
  return {
    shardIndex,
    shardCount,
    planHash: 'plan-aaa',
    host: `host-${shardIndex}`,
    timeoutS: 20,
    maxUncertaintyMs: 10,
    leadMs: 300,
    ...extra,
  };
}

async function join(name: string, opts: JoinOptions, target: RedisServer = server) {
  const connection = await connectRendezvous(target.url(name), { timeoutS: 5 });
  return connection.join(opts);
}

/** Asserts `promise` rejects with a RendezvousError of one line matching `pattern`; returns the message. */
async function refused(promise: Promise<unknown>, pattern: RegExp): Promise<string> {
  let message = '';
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof RendezvousError, String(error));
    assert.ok(error instanceof UsageError);
    assert.ok(!error.message.includes('\n'), error.message);
    assert.match(error.message, /^--rendezvous redis:\/\/127\.0\.0\.1:\d+\/\S+: /);
    assert.match(error.message, pattern);
    message = error.message;
    return true;
  });
  return message;
}

async function keysOf(name: string): Promise<string[]> {
  const redis = new Redis({ host: '127.0.0.1', port: server.port, protocol: 2 });
  try {
    return (await redis.keys(`servebench:${name}:*`)).sort();
  } finally {
    redis.disconnect();
  }
}

test('3 shards on separate connections get one start and wake together', { timeout: 60_000 }, async () => {
  const name = freshName();
  const gates = await Promise.all([0, 1, 2].map((i) => join(name, options(i, 3))));
  try {
    const starts = new Set(gates.map((g) => g.startReferenceMs));
    assert.equal(starts.size, 1);
    const start = gates[0]!.startReferenceMs!;
    assert.deepEqual(gates.map((g) => g.join!.order).sort(), [1, 2, 3]);
    for (const gate of gates) {
      assert.equal(gate.clock.source, 'redis-time');
      assert.ok(gate.clock.samples >= 8);
      assert.ok(gate.clock.uncertainty_ms! <= 10 && gate.clock.uncertainty_ms! > 0);
      assert.ok(gate.clock.rtt_ms! >= 0);
      assert.ok(gate.join!.waited_ms >= 0);
      assert.ok(start > gate.join!.joined_reference_ms);
    }
    // The shard that completed the set waited for nobody.
    assert.equal(gates.find((g) => g.join!.order === 3)!.join!.waited_ms, 0);
    const woke = await Promise.all(
      gates.map(async (gate) => {
        const { lateMs } = await gate.waitForStart();
        assert.ok(lateMs >= 0);
        return performance.timeOrigin + performance.now() + gate.clock.offset_ms;
      }),
    );
    const skew = Math.max(...woke) - Math.min(...woke);
    assert.ok(skew < 200, `wake skew ${skew} ms`);
    // Woke at the start, on the reference clock (not long before it: the wait cannot end early).
    for (const at of woke) assert.ok(at >= start - 10, `woke ${start - at} ms before the start`);
    assert.deepEqual(await keysOf(name), [
      `servebench:${name}:joined`,
      `servebench:${name}:order`,
      `servebench:${name}:rendezvous`,
    ]);
  } finally {
    await Promise.all(gates.map((g) => g.close()));
  }
});

test('the default lead is at least a second after the last join', { timeout: 30_000 }, async () => {
  const name = freshName();
  const { leadMs: _unused, ...rest } = options(0, 1);
  void _unused;
  const gate = await join(name, rest);
  try {
    assert.ok(gate.startReferenceMs! - gate.join!.joined_reference_ms >= 1000);
  } finally {
    await gate.close();
  }
});

test('a shard index joins once: the second is refused, naming the shard', { timeout: 30_000 }, async () => {
  const name = freshName();
  const controller = new AbortController();
  const first = join(name, options(0, 2, { signal: controller.signal }));
  await waitForJoined(name, 1);
  await refused(
    join(name, options(0, 2, { host: 'other' })),
    /shard 0\/2 already joined this rendezvous \(order 1, host host-0\): a shard index joins once/,
  );
  controller.abort();
  await assert.rejects(first, InterruptedError);
});

test(
  'a shard of another plan is refused, naming the field, and the waiting shards end at once, naming why',
  { timeout: 30_000 },
  async () => {
    const name = freshName();
    // Shard 0 waits with a 20 s timeout: it must end long before, on the refusal.
    const first = join(name, options(0, 3));
    await waitForJoined(name, 1);
    await refused(
      join(name, options(1, 3, { planHash: 'plan-bbb' })),
      /shard 1\/3 has plan hash plan-bbb, but this rendezvous is for plan hash plan-aaa/,
    );
    const started = performance.now();
    await refused(
      first,
      /shard 0\/3 left: the rendezvous ended before its start \(shard 1\/3 on host-1 has plan hash plan-bbb, not plan-aaa\); no start can come$/,
    );
    assert.ok(performance.now() - started < 10_000, 'ended on the refusal, not at its timeout');
    // The name is free again once every waiting shard left.
    assert.deepEqual(await keysOf(name), []);
  },
);

test(
  'a shard of another shard count ends the rendezvous too, and the waiting shard says why',
  { timeout: 30_000 },
  async () => {
    const name = freshName();
    const first = join(name, options(0, 2));
    await waitForJoined(name, 1);
    await refused(join(name, options(1, 3)), /shard 1\/3 expects 3 shards, but this rendezvous holds shard count 2/);
    await refused(
      first,
      /shard 0\/2 left: the rendezvous ended before its start \(shard 1\/3 on host-1 expects 3 shards, not 2\); no start can come$/,
    );
    assert.deepEqual(await keysOf(name), []);
  },
);

test('a shard that joins after the start was chosen is refused as late', { timeout: 30_000 }, async () => {
  const name = freshName();
  const gates = await Promise.all([0, 1].map((i) => join(name, options(i, 2))));
  try {
    await refused(
      join(name, options(1, 2)),
      /shard 1\/2 joined after the start was chosen \(start \d{4}-.*Z\): a late shard is refused, not merged/,
    );
  } finally {
    await Promise.all(gates.map((g) => g.close()));
  }
});

test('fewer than N shards within the timeout: each fails with the count, and leaves', { timeout: 30_000 }, async () => {
  const name = freshName();
  const early = join(name, options(0, 3, { timeoutS: 1 }));
  await waitForJoined(name, 1);
  const later = join(name, options(1, 3, { timeoutS: 2 }));
  await refused(early, /only 2 of 3 shards joined within 1 s \(shard 0\/3 gave up and left\)/);
  await refused(later, /only 1 of 3 shards joined within 2 s/);
  // Both took their entries back: the name is free again.
  assert.deepEqual(await keysOf(name), []);
});

test(
  'a clock less certain than the bound is refused before it joins, naming both numbers',
  { timeout: 30_000 },
  async () => {
    const name = freshName();
    await refused(
      join(name, options(0, 2, { maxUncertaintyMs: 0 })),
      /shard 0\/2 refused: clock offset uncertainty \d+\.\d{3} ms exceeds --max-clock-uncertainty 0 ms \(min RTT \d+\.\d{3} ms over 24 TIME round trips\)/,
    );
    assert.deepEqual(await keysOf(name), []);
  },
);

test(
  'an abort while waiting is an InterruptedError, and the shard leaves the rendezvous',
  { timeout: 30_000 },
  async () => {
    const name = freshName();
    const controller = new AbortController();
    const waiting = join(name, options(0, 2, { signal: controller.signal }));
    await waitForJoined(name, 1);
    controller.abort();
    await assert.rejects(waiting, InterruptedError);
    assert.deepEqual(await keysOf(name), []);
    const aborted = new AbortController();
    aborted.abort();
    await assert.rejects(
      connectRendezvous(server.url(name), { timeoutS: 5, signal: aborted.signal }),
      InterruptedError,
    );
  },
);

test('Redis lost while a shard waits: one line, the connection closed', { timeout: 30_000 }, async () => {
  const doomed = await startRedisServer();
  const connection = await connectRendezvous(doomed.url('n3'), { timeoutS: 5 });
  // Settled into a value at once: it rejects while the server is being stopped, before the assertion.
  const waiting = connection.join(options(0, 2)).then(
    () => assert.fail('joined a rendezvous whose server is gone'),
    (error: unknown) => error,
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  await doomed.stop();
  await assert.rejects(
    waiting.then((error) => Promise.reject(error as Error)),
    (error: unknown) => {
      assert.ok(error instanceof RendezvousError, String(error));
      assert.match(
        error.message,
        new RegExp(
          `^--rendezvous redis://127\\.0\\.0\\.1:${doomed.port}/n3: Redis failed during the rendezvous \\(.+\\)$`,
        ),
      );
      return true;
    },
  );
  await connection.close();
});

test('an unreachable Redis fails fast with one line, and never shows the password', { timeout: 30_000 }, async () => {
  const port = await freePort();
  const url = `redis://bench:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}/n1`;
  const startedAt = performance.now();
  await assert.rejects(connectRendezvous(url, { timeoutS: 10 }), (error: unknown) => {
    assert.ok(error instanceof RendezvousError);
    assert.equal(error.message.split('\n').length, 1);
    assert.match(
      error.message,
      new RegExp(`^--rendezvous redis://bench@127\\.0\\.0\\.1:${port}/n1: cannot reach Redis \\(.*ECONNREFUSED.*\\)$`),
    );
    assert.ok(!error.message.includes(PASSWORD) && !String(error.stack).includes(PASSWORD));
    return true;
  });
  assert.ok(performance.now() - startedAt < 10_000);
});

test(
  'a wrong password is refused as unreachable, without the password; the right one joins',
  { timeout: 30_000 },
  async () => {
    const wrong = `wrong-${PASSWORD}`;
    await assert.rejects(
      connectRendezvous(secured.url('n2', { password: wrong }), { timeoutS: 5 }),
      (error: unknown) => {
        assert.ok(error instanceof RendezvousError);
        assert.match(error.message, /cannot reach Redis \(WRONGPASS/);
        assert.ok(!error.message.includes(wrong) && !error.message.includes(PASSWORD));
        return true;
      },
    );
    await assert.rejects(connectRendezvous(secured.url('n2'), { timeoutS: 5 }), /cannot reach Redis \(NOAUTH/);
    const connection = await connectRendezvous(secured.url('n2', { password: PASSWORD }), { timeoutS: 5 });
    assert.equal(connection.display, `redis://127.0.0.1:${secured.port}/n2`);
    const gate = await connection.join(options(0, 1));
    assert.equal(gate.join!.order, 1);
    await gate.close();
  },
);

test(
  'a local gate: no start resolves at once; a start resolves at it, never before; an abort interrupts',
  { timeout: 30_000 },
  async () => {
    const now = localStartGate(null);
    assert.deepEqual(now.clock, {
      source: 'local-clock',
      offset_ms: 0,
      uncertainty_ms: null,
      rtt_ms: null,
      samples: 0,
    });
    assert.equal(now.join, null);
    assert.deepEqual(await now.waitForStart(), { lateMs: 0 });
    const target = performance.timeOrigin + performance.now() + 50;
    const soon = localStartGate(target);
    const { lateMs } = await soon.waitForStart();
    assert.ok(performance.timeOrigin + performance.now() >= target);
    assert.ok(lateMs >= 0);
    const past = await localStartGate(target - 1000).waitForStart();
    assert.ok(past.lateMs >= 1000);
    const controller = new AbortController();
    const far = localStartGate(performance.timeOrigin + performance.now() + 60_000).waitForStart(controller.signal);
    controller.abort();
    await assert.rejects(far, InterruptedError);
    await soon.close();
  },
);

/** Waits until `count` shards joined `name` (read straight from Redis). */
async function waitForJoined(name: string, count: number): Promise<void> {
  const redis = new Redis({ host: '127.0.0.1', port: server.port, protocol: 2 });
  try {
    while ((await redis.hlen(`servebench:${name}:joined`)) < count)
      await new Promise((resolve) => setTimeout(resolve, 10));
  } finally {
    redis.disconnect();
  }
}
