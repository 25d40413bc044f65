import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { bitsToDouble } from '../../src/metrics/float-bits.js';
import { isFloatKey, pyEscapeString, pyFloatRepr, pyIntRepr, toPyJson } from '../../src/result/pyjson.js';
import { testData } from '../helpers/fixtures.js';

describe('Python float repr (docs/protocol.md#serialization)', () => {
  it('matches every CPython repr() vector (committed test data)', () => {
    const vectors = JSON.parse(readFileSync(testData('metrics', 'data', 'float-repr-vectors.json'), 'utf8')) as [
      string,
      string,
    ][];
    assert.ok(vectors.length > 3000);
    for (const [hex, expected] of vectors) {
      const x = bitsToDouble(BigInt(`0x${hex}`));
      assert.equal(pyFloatRepr(x), expected, `bits ${hex}`);
    }
  });

  it('lays out the documented edge cases', () => {
    const cases: [number, string][] = [
      [2968, '2968.0'],
      [0, '0.0'],
      [-0, '-0.0'],
      [1e-5, '1e-05'],
      [1.5e-5, '1.5e-05'],
      [1e-4, '0.0001'],
      [1e16, '1e+16'],
      [1e15, '1000000000000000.0'],
      [1.2345678901234568e17, '1.2345678901234568e+17'],
      [41.64443605916546, '41.64443605916546'],
      [5e-324, '5e-324'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
    ];
    for (const [x, text] of cases) assert.equal(pyFloatRepr(x), text);
  });

  it('refuses non-finite numbers', () => {
    for (const x of [Number.NaN, Infinity, -Infinity]) assert.throws(() => pyFloatRepr(x), RangeError);
    assert.throws(() => toPyJson({ a_ms: Number.NaN }), /a_ms: cannot write non-finite/);
  });

  it('property: Number(repr(x)) === x for every finite double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        assert.ok(Object.is(Number(pyFloatRepr(x)), x));
      }),
      { numRuns: 5000 },
    );
  });

  it('property: repr is a Python float literal (has a dot or an exponent)', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        assert.match(pyFloatRepr(x), /^-?(\d+\.\d+|\d(\.\d+)?e[+-]\d{2,3})$/);
      }),
      { numRuns: 2000 },
    );
  });

  it('ints print all digits, never exponents', () => {
    assert.equal(pyIntRepr(94976), '94976');
    assert.equal(pyIntRepr(1e21), '1000000000000000000000');
    assert.equal(pyIntRepr(-0), '0');
    assert.equal(pyIntRepr(12n), '12');
    assert.throws(() => pyIntRepr(1.5), RangeError);
  });
});

describe('Python json.dumps layout (indent=2, sort_keys, ensure_ascii)', () => {
  it('escapes like ensure_ascii, including DEL and astral pairs', () => {
    // Python: json.dumps('\x7f\x80\x1f\ud800\U0001f600\u2028/') == '"\\u007f\\u0080\\u001f\\ud800\\ud83d\\ude00\\u2028/"'
    assert.equal(
      pyEscapeString('\x7f\x80\x1f\ud800\u{1F600}\u2028/'),
      '"\\u007f\\u0080\\u001f\\ud800\\ud83d\\ude00\\u2028/"',
    );
    assert.equal(pyEscapeString('a"b\\c\n\r\t\b\f'), '"a\\"b\\\\c\\n\\r\\t\\b\\f"');
    assert.equal(pyEscapeString('é'), '"\\u00e9"');
  });

  it('sorts keys by code point, recursively (so "131072" < "16000")', () => {
    assert.equal(toPyJson({ '16000': 1, '131072': 2 }), '{\n  "131072": 2,\n  "16000": 1\n}');
    // U+FFFF sorts before an astral character by code point, after it by UTF-16 units.
    // Python: json.dumps({'\U0001f600':1,'\uffff':2,'b':3}, sort_keys=True)
    assert.equal(
      toPyJson({ '\u{1F600}': 1, '\uffff': 2, b: 3 }),
      '{\n  "b": 3,\n  "\\uffff": 2,\n  "\\ud83d\\ude00": 1\n}',
    );
  });

  it('writes empty containers inline and nests with two spaces', () => {
    assert.equal(
      toPyJson({ a: [], b: {}, c: [1, { d_ms: 2 }] }),
      '{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    {\n      "d_ms": 2.0\n    }\n  ]\n}',
    );
    assert.equal(toPyJson([]), '[]');
    assert.equal(toPyJson(null), 'null');
  });

  it('applies the float key rule; fractions are floats under any key', () => {
    assert.equal(
      toPyJson({ wall_clock_ms: 31288, requests: 32, prompt_tokens_p50: 2968, x: 0.5, throughput_tok_s: 0 }),
      '{\n  "prompt_tokens_p50": 2968.0,\n  "requests": 32,\n  "throughput_tok_s": 0.0,\n  "wall_clock_ms": 31288.0,\n  "x": 0.5\n}',
    );
    for (const key of [
      'e2e_ms',
      'content_chunks_s',
      'decode_tok_s',
      'prefix_cache_hit_avg',
      'x_ratio',
      'timeout_seconds',
      'a_p90',
      'a_p99',
      'a_p999',
    ]) {
      assert.ok(isFloatKey(key), key);
    }
    for (const key of [
      'ttft_samples',
      'prompt_token_samples',
      'requests',
      'cached_tokens',
      'http_status',
      '4096',
      'usage',
    ]) {
      assert.ok(!isFloatKey(key), key);
    }
  });

  it('skips undefined members, refuses cycles and functions', () => {
    assert.equal(toPyJson({ a: undefined, b: 1 }), '{\n  "b": 1\n}');
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    assert.throws(() => toPyJson(cyclic), TypeError);
    assert.throws(() => toPyJson({ f: () => 1 }), TypeError);
  });

  it('property: output parses back to the same value (JSON.parse)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        assert.deepEqual(JSON.parse(toPyJson(v)), JSON.parse(JSON.stringify(v)));
      }),
      { numRuns: 500 },
    );
  });
});
