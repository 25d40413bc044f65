import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errorCode, httpErrorMessage, makeRedactor, mapTransportError } from '../../src/client/errors.js';

const withCode = (code: string, message = code): Error => Object.assign(new Error(message), { code });

describe('httpErrorMessage', () => {
  it('prints urllib HTTPError text with standard reason phrases', () => {
    assert.equal(httpErrorMessage(400), 'HTTP Error 400: Bad Request');
    assert.equal(httpErrorMessage(429), 'HTTP Error 429: Too Many Requests');
    assert.equal(httpErrorMessage(503), 'HTTP Error 503: Service Unavailable');
    assert.equal(httpErrorMessage(599), 'HTTP Error 599: Unknown Status');
  });
});

describe('mapTransportError (docs/protocol.md#success-and-failure)', () => {
  const map = (error: unknown, phase: 'before-response' | 'body' = 'before-response'): [string, string] => {
    const failure = mapTransportError(error, phase, null);
    return [failure.type, failure.message];
  };
  it('maps connect-phase errno errors to URLError like urllib', () => {
    assert.deepEqual(map(withCode('ECONNREFUSED')), ['URLError', '<urlopen error [Errno 111] Connection refused>']);
    assert.deepEqual(map(withCode('ENOTFOUND')), ['URLError', '<urlopen error [Errno -2] Name or service not known>']);
    assert.deepEqual(map(withCode('EHOSTUNREACH')), ['URLError', '<urlopen error [Errno 113] No route to host>']);
    assert.deepEqual(map(withCode('UND_ERR_CONNECT_TIMEOUT')), ['URLError', '<urlopen error timed out>']);
  });
  it('finds the code inside an AggregateError (happy-eyeballs connect)', () => {
    const aggregate = new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'x');
    assert.equal(errorCode(aggregate), 'ECONNREFUSED');
    assert.deepEqual(map(aggregate), ['URLError', '<urlopen error [Errno 111] Connection refused>']);
  });
  it('maps read-phase errors unwrapped', () => {
    assert.deepEqual(map(withCode('UND_ERR_HEADERS_TIMEOUT')), ['TimeoutError', 'timed out']);
    assert.deepEqual(map(withCode('UND_ERR_BODY_TIMEOUT'), 'body'), ['TimeoutError', 'timed out']);
    assert.deepEqual(map(withCode('UND_ERR_SOCKET')), [
      'RemoteDisconnected',
      'Remote end closed connection without response',
    ]);
    assert.deepEqual(map(withCode('UND_ERR_SOCKET'), 'body'), ['IncompleteRead', 'IncompleteRead(0 bytes read)']);
    assert.deepEqual(map(withCode('ECONNRESET')), ['ConnectionResetError', '[Errno 104] Connection reset by peer']);
    assert.deepEqual(map(withCode('ECONNRESET'), 'body'), [
      'ConnectionResetError',
      '[Errno 104] Connection reset by peer',
    ]);
    assert.deepEqual(map(withCode('EPIPE'), 'body'), ['BrokenPipeError', '[Errno 32] Broken pipe']);
  });
  it('keeps unknown errors as their own class and message', () => {
    assert.deepEqual(map(new RangeError('boom')), ['RangeError', 'boom']);
    assert.deepEqual(map(new Error('')), ['Error', '<empty exception message>']);
    assert.deepEqual(map('weird'), ['Error', 'weird']);
  });
});

describe('makeRedactor', () => {
  it('removes the key, the whole header value and their escaped forms', () => {
    const key = 'sk-a/b+c"d-0123';
    const redact = makeRedactor({ 'content-type': 'application/json', authorization: `Bearer ${key}` });
    const text = `key ${key}; header Bearer ${key}; json ${JSON.stringify(key)}; url ${encodeURIComponent(key)}`;
    const clean = redact(text);
    assert.ok(
      !clean.includes(key) &&
        !clean.includes(JSON.stringify(key).slice(1, -1)) &&
        !clean.includes(encodeURIComponent(key)),
      clean,
    );
    assert.equal(clean, 'key [REDACTED]; header [REDACTED]; json "[REDACTED]"; url [REDACTED]');
  });
  it('redacts other secret-looking headers and any bearer token, leaves ordinary text alone', () => {
    const redact = makeRedactor({ 'x-api-key': 'abcd1234', 'x-request-id': 'r1' });
    assert.equal(
      redact('got abcd1234 and Bearer eyJhbGciOiJIUzI1NiJ9.x and r1'),
      'got [REDACTED] and Bearer [REDACTED] and r1',
    );
    assert.equal(redact('content "stop" here'), 'content "stop" here');
  });
});
