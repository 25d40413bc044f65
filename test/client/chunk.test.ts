import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyDataEvent, newChunkState, type ChunkState, type ChunkVerdict } from '../../src/client/chunk.js';
import { isTruthy, pythonTypeName } from '../../src/client/python.js';

function run(payloads: readonly unknown[]): { state: ChunkState; verdicts: ChunkVerdict[] } {
  const state = newChunkState();
  const verdicts: ChunkVerdict[] = [];
  payloads.forEach((payload, i) => {
    const data = typeof payload === 'string' ? payload : JSON.stringify(payload);
    verdicts.push(applyDataEvent(state, data, BigInt(i + 1) * 1000n));
  });
  return { state, verdicts };
}

const choice = (delta: unknown, finish: unknown = null): unknown => ({
  choices: [{ index: 0, delta, finish_reason: finish }],
});

function failureOf(payload: unknown): { type: string; message: string } {
  const { verdicts } = run([payload]);
  const verdict = verdicts[0];
  assert.ok(verdict !== undefined && verdict.kind === 'failed', `expected a failure for ${JSON.stringify(payload)}`);
  return { type: verdict.failure.type, message: verdict.failure.message };
}

describe('Python truthiness helpers', () => {
  it('follows Python: falsy None/False/0/""/[]/{}; " " is truthy', () => {
    for (const v of [null, undefined, false, 0, -0, '', [], {}]) assert.equal(isTruthy(v), false, JSON.stringify(v));
    for (const v of [' ', 'a', 1, -1, 0.5, true, [0], { a: null }]) assert.equal(isTruthy(v), true, JSON.stringify(v));
  });
  it('names JSON values by their Python type', () => {
    assert.deepEqual([null, true, 3, 1.5, 'x', [], {}].map(pythonTypeName), [
      'NoneType',
      'bool',
      'int',
      'float',
      'str',
      'list',
      'dict',
    ]);
  });
});

describe('chunk interpretation (docs/protocol.md#chunk-handling)', () => {
  it('counts reasoning then content; TTFO at the first reasoning, TTFT at the first content', () => {
    const { state } = run([
      { id: '', choices: [] },
      { id: 'resp-1', ...(choice({ role: 'assistant', content: null }) as object) },
      choice({ reasoning_content: 'think' }),
      choice({ reasoning: 'more' }),
      choice({ content: 'Hi' }),
      choice({ content: ' ' }), // whitespace-only content is visible
      choice({ content: '' }),
      { id: 'resp-2', ...(choice({}, 'length') as object) },
      { choices: [], usage: { completion_tokens: 4 } },
    ]);
    assert.equal(state.firstOutputNs, 3000n);
    assert.equal(state.firstContentNs, 5000n);
    assert.equal(state.reasoningChunks, 2);
    assert.equal(state.contentChunks, 2);
    assert.deepEqual(state.usage, { completion_tokens: 4 });
    assert.equal(state.finishReason, 'length');
    assert.equal(state.responseId, 'resp-1');
  });

  it('prefers truthy reasoning_content, else reasoning; one delta can count as both', () => {
    const { state } = run([
      choice({ reasoning_content: '', reasoning: 'r' }),
      choice({ reasoning_content: 'a', reasoning: 'b', content: 'c' }),
      choice({ thinking: 'x' }),
    ]);
    assert.equal(state.reasoningChunks, 2);
    assert.equal(state.contentChunks, 1);
    assert.equal(state.firstOutputNs, 1000n);
    assert.equal(state.firstContentNs, 2000n);
  });

  it('counts every choice of a chunk', () => {
    const { state } = run([{ choices: [{ delta: { content: 'a' } }, { delta: { content: 'b' } }, {}] }]);
    assert.equal(state.contentChunks, 2);
  });

  it('keeps the last truthy usage; {} and null do not replace it; non-object truthy usage clears it', () => {
    assert.deepEqual(run([{ usage: { a: 1 } }, { usage: {} }, { usage: null }]).state.usage, { a: 1 });
    assert.deepEqual(run([{ usage: { a: 1 } }, { usage: { a: 2 } }]).state.usage, { a: 2 });
    assert.equal(run([{ usage: { a: 1 } }, { usage: 5 }]).state.usage, null);
  });

  it('ends at [DONE] (whitespace stripped) and skips empty keep-alive payloads', () => {
    const { verdicts } = run(['', '  ', ' [DONE] ']);
    assert.deepEqual(
      verdicts.map((v) => v.kind),
      ['continue', 'continue', 'done'],
    );
  });
});

describe('chunk failures with the reference exception texts (docs/protocol.md#success-and-failure)', () => {
  it('delta: null and non-dict deltas → AttributeError', () => {
    assert.deepEqual(failureOf(choice(null)), {
      type: 'AttributeError',
      message: "'NoneType' object has no attribute 'get'",
    });
    assert.deepEqual(failureOf(choice([1])), {
      type: 'AttributeError',
      message: "'list' object has no attribute 'get'",
    });
    assert.deepEqual(failureOf(choice('x')), {
      type: 'AttributeError',
      message: "'str' object has no attribute 'get'",
    });
  });
  it('non-dict chunk → AttributeError with its Python type', () => {
    assert.deepEqual(failureOf([1, 2]), { type: 'AttributeError', message: "'list' object has no attribute 'get'" });
    assert.deepEqual(failureOf(3), { type: 'AttributeError', message: "'int' object has no attribute 'get'" });
    assert.deepEqual(failureOf('"s"'), { type: 'AttributeError', message: "'str' object has no attribute 'get'" });
    assert.deepEqual(failureOf('null'), {
      type: 'AttributeError',
      message: "'NoneType' object has no attribute 'get'",
    });
  });
  it('choices not iterable → TypeError; non-dict choice → AttributeError', () => {
    assert.deepEqual(failureOf({ choices: null }), { type: 'TypeError', message: "'NoneType' object is not iterable" });
    assert.deepEqual(failureOf({ choices: 7 }), { type: 'TypeError', message: "'int' object is not iterable" });
    assert.deepEqual(failureOf({ choices: [null] }), {
      type: 'AttributeError',
      message: "'NoneType' object has no attribute 'get'",
    });
    assert.deepEqual(failureOf({ choices: [3] }), {
      type: 'AttributeError',
      message: "'int' object has no attribute 'get'",
    });
    assert.deepEqual(failureOf({ choices: 'ab' }), {
      type: 'AttributeError',
      message: "'str' object has no attribute 'get'",
    });
    assert.equal(
      run([{ choices: '' }, { choices: {} }]).verdicts.every((v) => v.kind === 'continue'),
      true,
    );
  });
  it('in-stream error object → StreamError with the server message and a bounded excerpt', () => {
    const payload = {
      error: {
        code: 500,
        message: 'The model produced output that does not match the expected peg-native format',
        type: 'server_error',
      },
    };
    const { verdicts } = run([payload]);
    const v = verdicts[0];
    assert.ok(v?.kind === 'failed');
    assert.equal(v.failure.type, 'StreamError');
    assert.equal(v.failure.message, payload.error.message);
    assert.equal(v.failure.bodyExcerpt, JSON.stringify(payload));
    assert.equal(failureOf({ error: 'overloaded' }).message, 'overloaded');
    assert.equal(failureOf({ error: { code: 1 } }).message, '{"error":{"code":1}}');
    const long = run([{ error: { message: 'm', pad: 'x'.repeat(5000) } }]).verdicts[0];
    assert.ok(long?.kind === 'failed' && (long.failure.bodyExcerpt ?? '').length === 2048);
  });
  it('invalid JSON → JSONDecodeError naming the event and keeping an excerpt (deviation: the reference skipped it)', () => {
    const { verdicts } = run([choice({ content: 'a' }), '{"choices": [tru']);
    const v = verdicts[1];
    assert.ok(v?.kind === 'failed');
    assert.equal(v.failure.type, 'JSONDecodeError');
    assert.match(v.failure.message, /^invalid JSON in stream data event #2: /);
    assert.equal(v.failure.bodyExcerpt, '{"choices": [tru');
  });
});
