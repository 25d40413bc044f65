/**
 * The `--rendezvous` address: what it accepts, and that no message and no display ever holds the
 * password, however it is written (percent-encoded or pasted raw with `@`, `/`, `:` in it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseRendezvousUrl } from '../../src/shard/rendezvous-url.js';
import { UsageError } from '../../src/util/errors.js';

test('a plain address: host, port, name, no TLS, display as given', () => {
  const parsed = parseRendezvousUrl('redis://redis.bench.svc:6380/run-42');
  assert.deepEqual(parsed, {
    connection: { host: 'redis.bench.svc', port: 6380, tls: false },
    name: 'run-42',
    display: 'redis://redis.bench.svc:6380/run-42',
  });
});

test('the port defaults to 6379; rediss:// means TLS; the scheme is case-insensitive', () => {
  assert.deepEqual(parseRendezvousUrl('rediss://10.0.0.7/a.b_c').connection, {
    host: '10.0.0.7',
    port: 6379,
    tls: true,
  });
  assert.equal(parseRendezvousUrl('REDIS://h/n').display, 'redis://h:6379/n');
});

test('user and password are decoded; display keeps the user and drops the password', () => {
  const parsed = parseRendezvousUrl('redis://bench%40ops:p%40ss%2Fw%3Ard@h:1/n');
  assert.deepEqual(parsed.connection, { host: 'h', port: 1, username: 'bench@ops', password: 'p@ss/w:rd', tls: false });
  assert.equal(parsed.display, 'redis://bench%40ops@h:1/n');
  const passwordOnly = parseRendezvousUrl('redis://:secret@h:1/n');
  assert.deepEqual(passwordOnly.connection, { host: 'h', port: 1, password: 'secret', tls: false });
  assert.equal(passwordOnly.display, 'redis://h:1/n');
});

test('a raw password with @ / : in it is all password: the user information ends at the last @', () => {
  const parsed = parseRendezvousUrl('redis://default:a@b/c:d@h:2/n');
  assert.equal(parsed.connection.password, 'a@b/c:d');
  assert.equal(parsed.connection.host, 'h');
  assert.equal(parsed.display, 'redis://default@h:2/n');
});

test('an IPv6 host goes in brackets', () => {
  const parsed = parseRendezvousUrl('redis://[::1]:7000/n');
  assert.equal(parsed.connection.host, '::1');
  assert.equal(parsed.connection.port, 7000);
  assert.equal(parsed.display, 'redis://[::1]:7000/n');
  assert.throws(() => parseRendezvousUrl('redis://::1:7000/n'), /--rendezvous .*IPv6 HOST goes in brackets/);
});

const BAD: Array<[string, RegExp]> = [
  ['http://h:1/n', /expected redis:\/\//],
  ['h:1/n', /expected redis:\/\//],
  ['redis://h:1', /NAME is missing/],
  ['redis://h:1/', /NAME must be 1 to 64/],
  ['redis://h:1/a/b', /NAME must be 1 to 64/],
  ['redis://h:1/n?x=1', /NAME must be 1 to 64/],
  [`redis://h:1/${'n'.repeat(65)}`, /NAME must be 1 to 64/],
  ['redis://h:0/n', /PORT must be/],
  ['redis://h:65536/n', /PORT must be/],
  ['redis://h:x/n', /PORT must be/],
  ['redis://:1/n', /HOST is missing/],
  ['redis://h_!:1/n', /HOST is not/],
  ['redis://[::1/n', /closing bracket/],
  ['redis://u:%zz@h:1/n', /password is not valid percent-encoding/],
];

test('each malformed address is one UsageError line that starts with --rendezvous and says what is wrong', () => {
  for (const [text, why] of BAD) {
    assert.throws(
      () => parseRendezvousUrl(text),
      (error: unknown) => {
        assert.ok(error instanceof UsageError, text);
        assert.match(error.message, /^--rendezvous /, text);
        assert.match(error.message, why, text);
        assert.ok(!error.message.includes('\n'), text);
        return true;
      },
    );
  }
});

/** Text of any kind, with the characters that make URLs tricky well represented. */
const tricky = fc.string({
  unit: fc.oneof(
    fc.constantFrom('@', '/', ':', '%', '?', '#', '[', ']', '\n', ' '),
    fc.string({ minLength: 1, maxLength: 1 }),
  ),
  maxLength: 24,
});

test('property: the password, raw or encoded, never appears in a display or an error message', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('redis', 'rediss', 'Redis', 'http', ''),
      tricky,
      // A password distinctive enough that finding it means it leaked (not that it is a common word).
      tricky.map((t) => `pw~${t}~Zq`),
      fc.oneof(fc.constant('h.example'), fc.constant('[::1]'), tricky),
      fc.oneof(fc.constant(':6379'), fc.constant(''), tricky),
      fc.oneof(fc.constant('/run1'), tricky),
      fc.boolean(),
      (scheme, user, password, host, port, path, encode) => {
        const written = encode ? encodeURIComponent(password) : password;
        const forms = [password, encodeURIComponent(password), written];
        // Only a leak counts: the other parts must not hold the password by chance.
        fc.pre(![user, host, port, path].some((part) => forms.some((form) => part.includes(form))));
        const text = `${scheme}://${user}:${written}@${host}${port}${path}`;
        let shown: string;
        try {
          shown = parseRendezvousUrl(text).display;
        } catch (error) {
          assert.ok(error instanceof UsageError);
          shown = error.message;
          assert.ok(!shown.includes('\n'));
        }
        for (const form of forms) {
          assert.ok(!shown.includes(form), `${JSON.stringify(text)} → ${JSON.stringify(shown)}`);
        }
      },
    ),
    { numRuns: 2000 },
  );
});

test('property: a well-formed address round-trips its parts', () => {
  const nameArb = fc.stringMatching(/^[A-Za-z0-9._-]{1,64}$/);
  const hostArb = fc.stringMatching(/^[a-z0-9](?:[a-z0-9.-]{0,20}[a-z0-9])?$/);
  fc.assert(
    fc.property(
      hostArb,
      fc.integer({ min: 1, max: 65535 }),
      nameArb,
      fc.string({ minLength: 1 }),
      fc.string({ minLength: 1 }),
      (host, port, name, user, password) => {
        const text = `redis://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${host}:${port}/${name}`;
        const parsed = parseRendezvousUrl(text);
        assert.deepEqual(parsed.connection, { host, port, username: user, password, tls: false });
        assert.equal(parsed.name, name);
        assert.equal(parsed.display, `redis://${encodeURIComponent(user)}@${host}:${port}/${name}`);
      },
    ),
    { numRuns: 500 },
  );
});
