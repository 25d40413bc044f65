/**
 * The `/v1/embeddings` body (one JSON document, not streamed): its reader on its own, then
 * through the real client against a local server.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Dispatcher } from 'undici';
import fc from 'fast-check';
import { newChunkState, type ChunkFailure } from '../../src/client/chunk.js';
import { applyEmbeddingsBody } from '../../src/client/embeddings-body.js';
import { streamChatCompletion } from '../../src/client/stream.js';
import { createDispatcher } from '../../src/client/transport.js';
import type { RequestResult } from '../../src/record/types.js';
import { httpServer } from '../helpers/servers.js';

const USAGE = { prompt_tokens: 8, total_tokens: 8 };
const bodyOf = (data: unknown, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ object: 'list', id: 'embd-1', data, model: 'e5', usage: USAGE, ...extra });
const item = (embedding: unknown, index = 0): unknown => ({ object: 'embedding', index, embedding });

function failureOf(text: string, inputs = 1): ChunkFailure {
  const verdict = applyEmbeddingsBody(newChunkState(), text, 5n, inputs);
  assert.equal(verdict.kind, 'failed', text);
  assert.ok(verdict.kind === 'failed');
  return verdict.failure;
}

describe('applyEmbeddingsBody', () => {
  it('a vector per input: success, first output = first token = the arrival, usage and id kept', () => {
    const state = newChunkState();
    const verdict = applyEmbeddingsBody(state, ` ${bodyOf([item([0.1, -0.2, 3e-5])])}\n`, 77n, 1);
    assert.deepEqual(verdict, { kind: 'continue' });
    assert.equal(state.firstOutputNs, 77n);
    assert.equal(state.firstContentNs, 77n);
    assert.deepEqual(state.usage, USAGE);
    assert.equal(state.responseId, 'embd-1');
    assert.equal(state.contentChunks, 0);
  });

  it('base64 embeddings and several inputs are accepted', () => {
    const state = newChunkState();
    const verdict = applyEmbeddingsBody(state, bodyOf([item('AAAAPwAAgD8=', 0), item([1], 1)]), 1n, 2);
    assert.equal(verdict.kind, 'continue');
  });

  it('the wrong number of embeddings: ValueError saying both counts', () => {
    const failure = failureOf(bodyOf([item([1]), item([2], 1)]));
    assert.equal(failure.type, 'ValueError');
    assert.equal(failure.message, 'embeddings body has 2 embeddings for 1 inputs');
    assert.equal(failureOf(bodyOf([]), 1).message, 'embeddings body has 0 embeddings for 1 inputs');
  });

  it('an embedding that is not a non-empty vector of finite numbers: ValueError naming it', () => {
    for (const bad of [[], ['0.1'], [1, null], '', null, { x: 1 }]) {
      const failure = failureOf(bodyOf([item(bad)]));
      assert.equal(failure.type, 'ValueError', JSON.stringify(bad));
      assert.equal(failure.message, 'embeddings body: data[0].embedding is not a non-empty vector');
    }
    assert.equal(failureOf(bodyOf([5])).type, 'ValueError');
  });

  it('data that is not a list: TypeError', () => {
    const failure = failureOf(JSON.stringify({ object: 'list', data: { embedding: [1] } }));
    assert.equal(failure.type, 'TypeError');
    assert.equal(failure.message, 'embeddings body: data is dict, not list');
    assert.equal(failureOf('{}').message, 'embeddings body: data is NoneType, not list');
  });

  it('an error object: StreamError with the server’s message', () => {
    const failure = failureOf(JSON.stringify({ error: { message: 'input too long', type: 'invalid_request_error' } }));
    assert.equal(failure.type, 'StreamError');
    assert.equal(failure.message, 'input too long');
    assert.equal(failureOf(JSON.stringify({ error: 'overloaded' })).message, 'overloaded');
  });

  it('invalid JSON: JSONDecodeError naming the body; JSON that is not an object: AttributeError', () => {
    const failure = failureOf('{"data": [');
    assert.equal(failure.type, 'JSONDecodeError');
    assert.match(failure.message, /^invalid JSON in the embeddings body: /);
    assert.equal(failureOf('').type, 'JSONDecodeError');
    assert.equal(failureOf('[1,2]').type, 'AttributeError');
  });

  it('any JSON or text: a verdict, never an exception, and a failure always says what', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json(),
          fc.string(),
          fc.jsonValue().map((data) => bodyOf(data)),
        ),
        fc.nat(3),
        (text, n) => {
          const verdict = applyEmbeddingsBody(newChunkState(), text, 1n, n);
          assert.ok(verdict.kind === 'continue' || verdict.kind === 'failed');
          if (verdict.kind === 'failed') assert.ok(verdict.failure.type !== '' && verdict.failure.message !== '');
        },
      ),
      { numRuns: 300 },
    );
  });
});

let dispatcher: Dispatcher;
before(() => {
  dispatcher = createDispatcher({ connections: 4, idleTimeoutS: 5 });
});
after(async () => {
  await dispatcher.close();
});

/** One embeddings request through the real client to a server that answers `status` and `body` (in two writes). */
async function embed(status: number, body: string): Promise<{ result: RequestResult; sent: string; path: string }> {
  let sent = '';
  let path = '';
  const server = await httpServer((req, res) => {
    path = req.url ?? '';
    req.setEncoding('utf8');
    req.on('data', (part: string) => (sent += part));
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json' });
      const half = Math.floor(body.length / 2);
      res.write(body.slice(0, half));
      setTimeout(() => res.end(body.slice(half)), 20);
    });
  });
  try {
    const result = await streamChatCompletion({
      dispatcher,
      url: `${server.url}/v1/embeddings`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'e5', input: 'hello', encoding_format: 'float' }),
      requestIndex: 1,
      plannedContextTokens: 8,
      runStartNs: process.hrtime.bigint(),
      idleTimeoutS: 5,
      endpoint: 'embeddings',
    });
    return { result, sent, path };
  } finally {
    await server.close();
  }
}

describe('embeddings through the real client', () => {
  it('success: TTFO = TTFT = E2E (the last byte), usage kept, at least the second write’s wait', async () => {
    const { result, sent, path } = await embed(200, bodyOf([item([0.5, 0.25, -1])]));
    assert.equal(path, '/v1/embeddings');
    assert.deepEqual(JSON.parse(sent), { model: 'e5', input: 'hello', encoding_format: 'float' });
    assert.equal(result.ok, true, JSON.stringify(result.error));
    assert.equal(result.httpStatus, 200);
    assert.ok(result.e2eS !== null);
    assert.equal(result.timeToFirstOutputS, result.e2eS);
    assert.equal(result.ttftS, result.e2eS);
    assert.ok(result.e2eS >= 0.015, `the body ended after its second write: ${result.e2eS}`);
    assert.deepEqual(result.usage, USAGE);
    assert.equal(result.responseId, 'embd-1');
    assert.equal(result.toolCalls, undefined);
  });

  it('a body with the wrong count fails, with the body excerpt', async () => {
    const body = bodyOf([]);
    const { result } = await embed(200, body);
    assert.equal(result.ok, false);
    assert.equal(result.error?.type, 'ValueError');
    assert.equal(result.error?.bodyExcerpt, body);
    assert.equal(result.usage?.['prompt_tokens'], 8, 'the usage read before the failure is kept');
  });

  it('HTTP 400: HTTPError, the server’s body excerpt kept', async () => {
    const body = JSON.stringify({
      object: 'error',
      message: 'This model does not support embeddings',
      type: 'BadRequestError',
      code: 400,
    });
    const { result } = await embed(400, body);
    assert.equal(result.ok, false);
    assert.equal(result.httpStatus, 400);
    assert.equal(result.error?.type, 'HTTPError');
    assert.equal(result.error?.httpStatus, 400);
    assert.equal(result.error?.bodyExcerpt, body);
    assert.equal(result.ttftS, null);
  });
});
