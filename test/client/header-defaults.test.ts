import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { withHeaderDefaults } from '../../src/client/transport.js';

const DEFAULTS = { 'content-type': 'application/json', 'accept-encoding': 'identity' };

test('the caller\u2019s headers are kept as given; a default is added only when no header of its name (in any case) was set', () => {
  const name = fc.constantFrom(
    'content-type',
    'Content-Type',
    'ACCEPT-ENCODING',
    'accept-encoding',
    'authorization',
    'x-sim-fault',
  );
  fc.assert(
    fc.property(fc.dictionary(name, fc.string()), (headers) => {
      const out = withHeaderDefaults(headers, DEFAULTS);
      for (const [key, value] of Object.entries(headers)) assert.equal(out[key], value);
      for (const [key, value] of Object.entries(DEFAULTS)) {
        const setByCaller = Object.keys(headers).some((k) => k.toLowerCase() === key);
        assert.equal(out[key], setByCaller ? headers[key] : value, key);
      }
      const added = Object.keys(out).filter((k) => !(k in headers));
      assert.deepEqual(
        added.sort(),
        Object.keys(DEFAULTS)
          .filter((k) => !Object.keys(headers).some((h) => h.toLowerCase() === k))
          .sort(),
      );
    }),
  );
  assert.deepEqual(withHeaderDefaults({ 'Content-Type': 'text/plain' }, DEFAULTS), {
    'Content-Type': 'text/plain',
    'accept-encoding': 'identity',
  });
});
