/**
 * The client's memory figure (bench/README.md) as a test: 1,000 concurrent streams from one client process stay under
 * 300 MB of resident memory, measured as bench/stream-memory.ts measures it (161–166 MiB on the
 * project's 2-core VM, simulator and client pinned apart where the machine allows). A bound on
 * memory, not on time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { MEMORY_DEFAULTS, measureStreamMemory } from '../../bench/stream-memory.js';

const STREAMS = 1000;
const RSS_LIMIT_MIB = 300;

test(
  `${STREAMS} concurrent streams run with the client's peak RSS under ${RSS_LIMIT_MIB} MB`,
  { skip: !existsSync('/proc/self/status') && 'peak RSS is read from /proc' },
  async () => {
    // Every stream in flight at once for ~5 s (the bench's load: 50 tokens at 100 ms per token).
    const lines: string[] = [];
    const run = await measureStreamMemory(STREAMS, MEMORY_DEFAULTS, (line) => lines.push(line));
    assert.equal(run.completed, STREAMS, `every stream completed: ${lines.join('\n')}`);
    assert.ok(Number.isFinite(run.peakRssMiB), 'peak RSS was sampled');
    assert.ok(run.peakRssMiB * 1024 * 1024 < RSS_LIMIT_MIB * 1e6, `peak RSS ${run.peakRssMiB.toFixed(0)} MiB`);
  },
);
