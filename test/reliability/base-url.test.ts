/**
 * Base URLs that could carry a secret into the result (credentials, a query, a fragment) or point
 * somewhere that is not HTTP are refused before any request, from the flag or from a manifest,
 * and the refusal never repeats the secret.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkBaseUrl } from '../../src/config/base-url.js';
import { parseFlags } from '../../src/cli/parse.js';
import { RUN_FLAGS } from '../../src/cli/options.js';
import { resolveRunConfig } from '../../src/config/run-config.js';
import { UsageError } from '../../src/util/errors.js';

const SECRET = 'hunter2-s3cret-pw';

const refused: Array<[string, RegExp]> = [
  [`http://user:${SECRET}@127.0.0.1:8000/v1`, /credentials in the URL are not allowed/],
  [`http://${SECRET}@127.0.0.1:8000/v1`, /credentials in the URL are not allowed/],
  [`https://:${SECRET}@127.0.0.1/v1`, /credentials in the URL are not allowed/],
  [`http://127.0.0.1:8000/v1?api_key=${SECRET}`, /a query string is not allowed/],
  ['http://127.0.0.1:8000/v1?', /a query string is not allowed/],
  [`http://127.0.0.1:8000/v1#${SECRET}`, /a fragment is not allowed/],
  ['file:///etc/passwd', /scheme must be http or https, got 'file'/],
  ['javascript:alert(1)', /scheme must be http or https, got 'javascript'/],
  ['unix:/var/run/engine.sock', /scheme must be http or https, got 'unix'/],
  ['ws://127.0.0.1:8000/v1', /scheme must be http or https, got 'ws'/],
  [`user:${SECRET}@127.0.0.1:8000/v1`, /scheme must be http or https|not an absolute URL/],
  [`//user:${SECRET}@127.0.0.1/v1`, /not an absolute URL/],
];

for (const [url, problem] of refused) {
  test(`refuses ${url.replace(SECRET, 'SECRET')}`, () => {
    assert.throws(
      () => checkBaseUrl(url),
      (e: unknown) => {
        assert.ok(e instanceof UsageError);
        assert.match(e.message, problem);
        assert.ok(!e.message.includes(SECRET), `the message repeats the secret: ${e.message}`);
        return true;
      },
    );
  });
}

test('a manifest tier with credentials in its base_url is refused the same way', () => {
  const dir = mkdtempSync(join(tmpdir(), 'servebench-url-'));
  writeFileSync(join(dir, 'm.toml'), `[tiers.x]\nbase_url = "http://u:${SECRET}@127.0.0.1:9/v1"\nmodel = "m"\n`);
  const parsed = parseFlags(['--manifest', 'm.toml', '--tier', 'x'], RUN_FLAGS);
  assert.throws(
    () => resolveRunConfig(parsed.values, {}, dir, parsed.given),
    (e: unknown) => e instanceof UsageError && /credentials/.test(e.message) && !e.message.includes(SECRET),
  );
});

test('plain http(s) URLs with a path and port are accepted as given', () => {
  for (const url of [
    'http://127.0.0.1:8000/v1',
    'https://api.example.com/v1',
    'http://[::1]:8000/v1/',
    'http://10.0.0.5/openai/v1',
  ])
    assert.equal(checkBaseUrl(url), url);
});
