import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadSimConfigFile, resolveSimConfig } from '../../src/sim/config.js';
import { InputFileError, UsageError } from '../../src/util/errors.js';

describe('sim config', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sim-config-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('has documented defaults', () => {
    const c = resolveSimConfig();
    assert.equal(c.model, 'servebench-sim');
    assert.equal(c.max_model_len, 131_072);
    assert.equal(c.max_num_seqs, 16);
    assert.equal(c.prefill_tok_s, 8000);
    assert.equal(c.decode_step_ms, 10);
    assert.equal(c.tokens_per_chunk, 1);
    assert.deepEqual(c.output_tokens, { kind: 'max_tokens' });
    assert.deepEqual(c.prefix_cache, { enabled: true, block_tokens: 16, capacity_blocks: 65_536 });
    assert.equal(c.time_scale, 1);
  });

  it('reports every bad path on one line', () => {
    assert.throws(
      () => resolveSimConfig({ decode_step_ms: 0, prefix_cache: { block_tokens: 1.5 }, decode_step: 3 }),
      (err: unknown) => {
        assert.ok(err instanceof UsageError);
        assert.ok(!err.message.includes('\n'));
        assert.match(err.message, /decode_step_ms: /);
        assert.match(err.message, /prefix_cache\.block_tokens: /);
        assert.match(err.message, /decode_step/);
        return true;
      },
    );
  });

  it('loads JSON and TOML files', async () => {
    const json = join(dir, 'sim.json');
    await writeFile(json, JSON.stringify({ seed: 5, output_tokens: { kind: 'geometric', mean_tokens: 40 } }));
    assert.equal((await loadSimConfigFile(json)).seed, 5);
    const toml = join(dir, 'sim.toml');
    await writeFile(
      toml,
      'max_num_seqs = 4\ndecode_step_ms = 2.5\n[output_tokens]\nkind = "lognormal"\nmean_tokens = 100\n[prefix_cache]\nenabled = false\n',
    );
    const c = await loadSimConfigFile(toml);
    assert.equal(c.max_num_seqs, 4);
    assert.deepEqual(c.output_tokens, { kind: 'lognormal', mean_tokens: 100, sigma: 0.5 });
    assert.equal(c.prefix_cache.enabled, false);
    assert.equal(c.prefix_cache.block_tokens, 16);
  });

  it('names the file, the JSON path and the reason in one line', async () => {
    const cases: Array<[string, string, RegExp]> = [
      [
        'bad-value.json',
        JSON.stringify({ output_tokens: { kind: 'uniform', min_tokens: 9, max_tokens: 3 } }),
        /bad-value\.json: output_tokens\.min_tokens: min_tokens must be <= max_tokens/,
      ],
      [
        'bad-kind.json',
        JSON.stringify({ output_tokens: { kind: 'poisson' } }),
        /bad-kind\.json: output_tokens(\.kind)?: /,
      ],
      ['bad.json', '{"seed": ', /bad\.json: line 1 column 10: not valid JSON \(Unexpected end of JSON input\)/],
      [
        'bad-faults.json',
        JSON.stringify({ faults: 'rate=2:mix=429' }),
        /bad-faults\.json: faults: rate= must be a probability from 0 to 1, got '2'/,
      ],
      ['bad.toml', 'seed = = 3', /bad\.toml: Invalid TOML document.*line 1/],
      ['types.toml', 'max_num_seqs = "many"', /types\.toml: max_num_seqs: /],
    ];
    for (const [name, text, pattern] of cases) {
      const file = join(dir, name);
      await writeFile(file, text);
      await assert.rejects(loadSimConfigFile(file), (err: unknown) => {
        assert.ok(err instanceof InputFileError, name);
        assert.ok(!err.message.includes('\n'), `${name}: ${err.message}`);
        assert.match(err.message, pattern);
        return true;
      });
    }
    await assert.rejects(loadSimConfigFile(join(dir, 'missing.json')), /missing\.json: no such file$/);
  });
});
