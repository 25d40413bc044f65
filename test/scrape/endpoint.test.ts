/** Which URL is scraped with which headers, what the result records, and what a note may never hold. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { headerSecrets, redactSecrets, scrapeEndpoint } from '../../src/scrape/endpoint.js';
import { parseServerMetrics } from '../../src/config/server-metrics.js';
import { UsageError } from '../../src/util/errors.js';

const BASE = 'http://10.0.0.5:8000/v1';

test('auto scrapes the base URL origin + /metrics, with the API key (same origin)', () => {
  const e = scrapeEndpoint({ kind: 'auto' }, BASE, 'sk-key');
  assert.equal(e.url, 'http://10.0.0.5:8000/metrics');
  assert.equal(e.recordedUrl, 'http://10.0.0.5:8000/metrics');
  assert.equal(e.source, 'auto');
  assert.equal(e.headers['authorization'], 'Bearer sk-key');
});

test('the API key goes to the base URL origin only: another port, host or scheme never sees it', () => {
  for (const url of ['http://10.0.0.5:9000/metrics', 'http://10.0.0.6:8000/metrics', 'https://10.0.0.5:8000/metrics']) {
    const e = scrapeEndpoint({ kind: 'url', url }, BASE, 'sk-key');
    assert.equal(e.headers['authorization'], undefined, url);
    assert.equal(e.source, 'flag');
  }
  const same = scrapeEndpoint({ kind: 'url', url: 'http://10.0.0.5:8000/other/metrics' }, BASE, 'sk-key');
  assert.equal(same.headers['authorization'], 'Bearer sk-key');
});

test("a URL's own credentials are sent as Basic auth to it and recorded nowhere; the query is sent, not recorded", () => {
  const e = scrapeEndpoint(
    { kind: 'url', url: 'http://u%40x:p%3Ass@10.0.0.5:8000/metrics?token=t1#f' },
    BASE,
    'sk-key',
  );
  assert.equal(e.url, 'http://10.0.0.5:8000/metrics?token=t1');
  assert.equal(e.recordedUrl, 'http://10.0.0.5:8000/metrics');
  assert.equal(e.headers['authorization'], `Basic ${Buffer.from('u@x:p:ss').toString('base64')}`);
  assert.deepEqual(
    redactSecrets('echo p:ss and u@x:p:ss', headerSecrets(e.headers)),
    'echo [redacted] and u@x:[redacted]',
  );
});

test('property: no secret of the headers survives redaction, wherever and however often it sits in the text', () => {
  fc.assert(
    fc.property(
      // Keys from an alphabet '[redacted]' does not use, so a marker can never help spell one.
      fc.stringMatching(/^[A-F0-9]{8,40}$/),
      fc.array(fc.string(), { minLength: 1, maxLength: 4 }),
      fc.constantFrom('Bearer', 'Basic'),
      (key, parts, scheme) => {
        const credential = scheme === 'Basic' ? Buffer.from(`user:${key}`).toString('base64') : key;
        const secrets = headerSecrets({ authorization: `${scheme} ${credential}` });
        const out = redactSecrets(parts.join(key), secrets);
        assert.ok(!out.includes(key), out);
        assert.ok(!out.includes(credential), out);
      },
    ),
  );
});

test('--server-metrics: auto, off, or an absolute http(s) URL; anything else is one line naming the flag, without credentials', () => {
  assert.deepEqual(parseServerMetrics('auto'), { kind: 'auto' });
  assert.deepEqual(parseServerMetrics('off'), { kind: 'off' });
  assert.deepEqual(parseServerMetrics('https://h:1/m?q=1'), { kind: 'url', url: 'https://h:1/m?q=1' });
  for (const bad of ['ftp://h/m', 'h:1/metrics', '', 'http://h/m#frag', 'nope://u:secret@h/m']) {
    assert.throws(
      () => parseServerMetrics(bad),
      (error: unknown) =>
        error instanceof UsageError && /^--server-metrics: /.test(error.message) && !error.message.includes('secret'),
      bad,
    );
  }
});
