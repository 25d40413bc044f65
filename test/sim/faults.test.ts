/**
 * The fault SPEC language, the deterministic schedule, and how the simulator applies faults:
 * only to streaming generation requests, the header winning over the schedule.
 */
import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FAULTS,
  FaultSchedule,
  FaultSpecError,
  formatFault,
  parseFault,
  parseFaultSpec,
} from '../../src/sim/faults.js';
import { hugeLineEvent } from '../../src/sim/faults-stream.js';
import { resolveSimConfig, loadSimConfigFile } from '../../src/sim/config.js';
import { startSim, type SimHandle } from '../../src/sim/server.js';
import { UsageError } from '../../src/util/errors.js';
import { runCli } from '../helpers/cli.js';

describe('fault SPEC', () => {
  it('parses the fault-spec example: rate, a mix with aliases and arguments', () => {
    const plan = parseFaultSpec('rate=0.1:mix=429,reset_mid,stall_first:2');
    assert.equal(plan.rate, 0.1);
    assert.deepEqual(plan.mix.map(formatFault), ['http_429:1', 'reset_mid:2', 'stall_first:2']);
    assert.equal(plan.every, null);
    assert.equal(plan.at, null);
  });

  it('a bare fault list is a mix on every request; every= and at= schedule by arrival index', () => {
    assert.equal(parseFaultSpec('stall_mid:1.5:3').rate, 1);
    assert.deepEqual(parseFaultSpec('stall_mid:1.5:3').mix[0]?.args, { stall_s: 1.5, after_chunks: 3 });
    assert.equal(parseFaultSpec('every=4:mix=500').every, 4);
    assert.deepEqual(parseFaultSpec('at=0,7:mix=gzip:seed=9').at, [0, 7]);
    assert.equal(parseFaultSpec('at=0,7:mix=gzip:seed=9').seed, 9);
  });

  it('refuses bad specs with one line naming the problem', () => {
    const bad: Array<[string, RegExp]> = [
      ['', /empty fault spec/],
      ['mix=teapot', /unknown fault 'teapot'/],
      ['rate=1.5:mix=500', /rate= must be a probability/],
      ['rate=0.5', /needs mix=/],
      ['mix=http_500:3', /takes no arguments/],
      ['mix=stall_first:-1', /stall_s must be a number from 0 to 3600/],
      ['mix=stall_first:1:2', /at most 1/],
      ['rate=0.1:every=3:mix=500', /cannot be combined/],
      ['every=0:mix=500', /every= must be a whole number ≥ 1/],
      ['mix=500:mix=503', /given twice/],
      ['colour=red:mix=500', /unknown field 'colour='/],
      ['mix=huge_line:10', /bytes must be a number from 64/],
    ];
    for (const [spec, pattern] of bad) {
      assert.throws(
        () => parseFaultSpec(spec),
        (e: unknown) => e instanceof FaultSpecError && pattern.test(e.message) && !e.message.includes('\n'),
        spec,
      );
    }
  });

  it('every fault parses with its defaults and formats back to itself', () => {
    for (const name of Object.keys(FAULTS)) {
      const fault = parseFault(name);
      assert.equal(parseFault(formatFault(fault)).name, fault.name);
      assert.deepEqual(parseFault(formatFault(fault)).args, fault.args);
    }
  });

  it('the schedule is deterministic and close to the rate; every= and at= pick exactly', () => {
    const plan = parseFaultSpec('rate=0.1:mix=429,reset_mid,stall_first:2');
    const a = new FaultSchedule(plan, 3);
    const b = new FaultSchedule(plan, 3);
    const picks = Array.from({ length: 5000 }, (_, i) => a.faultFor(i));
    assert.deepEqual(
      picks,
      Array.from({ length: 5000 }, (_, i) => b.faultFor(i)),
    );
    const faulted = picks.filter((f) => f !== null);
    assert.ok(faulted.length > 400 && faulted.length < 600, `${faulted.length} of 5000 at rate 0.1`);
    for (const name of ['http_429', 'reset_mid', 'stall_first'])
      assert.ok(
        faulted.some((f) => f?.name === name),
        name,
      );
    assert.notDeepEqual(
      picks,
      Array.from({ length: 5000 }, (_, i) => new FaultSchedule(plan, 4).faultFor(i)),
      'another seed, another schedule',
    );
    const every = new FaultSchedule(parseFaultSpec('every=3:mix=500,503'), 0);
    assert.deepEqual(
      Array.from({ length: 9 }, (_, i) => every.faultFor(i)?.name ?? null),
      [null, null, 'http_500', null, null, 'http_503', null, null, 'http_500'],
    );
    const at = new FaultSchedule(parseFaultSpec('at=1,4:mix=gzip,missing_done'), 0);
    assert.deepEqual(
      Array.from({ length: 6 }, (_, i) => at.faultFor(i)?.name ?? null),
      [null, 'gzip', null, null, 'missing_done', null],
    );
    assert.equal(new FaultSchedule(null, 0).faultFor(0), null);
  });

  it('the huge line is exactly the asked size and valid JSON', () => {
    const event = hugeLineEvent(1000);
    assert.equal(event.length, 1002);
    assert.equal(event.subarray(1000).toString(), '\n\n');
    const chunk = JSON.parse(event.subarray(6, 1000).toString()) as { choices: { delta: { content: string } }[] };
    assert.match(chunk.choices[0]!.delta.content, /^x+$/);
  });

  it('sim config: a bad faults value is a one-line usage error; a file may carry faults', async () => {
    assert.throws(
      () => resolveSimConfig({ faults: 'mix=nope' }),
      (e: unknown) => e instanceof UsageError && /faults: unknown fault 'nope'/.test(e.message),
    );
    const dir = mkdtempSync(join(tmpdir(), 'servebench-faultcfg-'));
    const file = join(dir, 'sim.toml');
    writeFileSync(file, 'faults = "every=2:mix=http_503"\n');
    assert.equal((await loadSimConfigFile(file)).faults, 'every=2:mix=http_503');
  });
});

describe('the simulator applies faults', () => {
  let sim: SimHandle;
  before(async () => {
    sim = await startSim({ decode_step_ms: 1, prefill_tok_s: 1e6, faults: 'every=2:mix=http_503' });
  });
  after(() => sim.close());

  const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${sim.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }], max_tokens: 2, ...body }),
    });

  it('streaming requests count as arrivals; non-streaming ones and probes are never faulted', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const plain = await post({ stream: false });
      assert.equal(plain.status, 200, 'non-streaming: never faulted');
      await plain.text();
      assert.equal((await fetch(`${sim.url}/models`)).status, 200);
      const streamed = await post({ stream: true });
      statuses.push(streamed.status);
      await streamed.text();
    }
    assert.deepEqual(statuses, [200, 503, 200, 503]);
    assert.equal(sim.faultCounts().http_503, 2);
  });

  it('the x-sim-fault header wins over the schedule, `none` forces no fault, a bad one is HTTP 400', async () => {
    const forced = await post({ stream: true }, { 'x-sim-fault': '429:3' });
    assert.equal(forced.status, 429);
    assert.equal(forced.headers.get('retry-after'), '3');
    assert.equal(forced.headers.get('x-sim-fault'), 'http_429:3');
    await forced.text();
    await (await post({ stream: true })).text(); // arrival 5 (index 4): not scheduled
    const none = await post({ stream: true }, { 'x-sim-fault': 'none' }); // index 5 would be 503
    assert.equal(none.status, 200);
    await none.text();
    const bad = await post({ stream: true }, { 'x-sim-fault': 'teapot' });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /x-sim-fault: unknown fault 'teapot'/);
  });

  it('missing_usage and missing_done remove exactly their event; stream_error ends without [DONE]', async () => {
    const text = async (fault: string) =>
      await (await post({ stream: true, stream_options: { include_usage: true } }, { 'x-sim-fault': fault })).text();
    const normal = await text('none');
    assert.match(normal, /"usage":\{"prompt_tokens"/);
    assert.match(normal, /data: \[DONE\]\n\n$/);
    assert.doesNotMatch(await text('missing_usage'), /"usage"/);
    const noDone = await text('missing_done');
    assert.doesNotMatch(noDone, /\[DONE\]/);
    assert.match(noDone, /"usage"/);
    const error = await text('stream_error:1');
    assert.match(error, /data: \{"error":\{"code":500,"message":"simulated stream failure/);
    assert.doesNotMatch(error, /\[DONE\]|"usage"/);
  });
});

it('servebench sim --faults: a bad SPEC exits 2 with one line; --help documents it', async () => {
  const bad = await runCli(['sim', '--port', '0', '--faults', 'rate=3:mix=500']);
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /^servebench sim: invalid sim config: faults: rate= must be a probability from 0 to 1, got '3'\n$/,
  );
  const help = await runCli(['sim', '--help']);
  assert.match(help.stdout, /--faults SPEC/);
});
