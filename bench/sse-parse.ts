/**
 * SSE chunks parsed per second on one core, as a ratio to a baseline measured in the same run.
 * Not part of `npm test`. Build, then `node dist/bench/sse-parse.js [chunks]`.
 *
 * Input: a realistic OpenAI stream (vLLM-shaped chunks of one token each, then usage and [DONE]),
 * delivered in 1400-byte network reads. Measured:
 * - baseline: split the same bytes on "\n\n" after one TextDecoder pass and JSON.parse each
 *   payload — the least any client must do;
 * - servebench: SseParser (byte-level WHATWG parsing) + applyDataEvent (chunk semantics, counts,
 *   timestamps), exactly the client's per-chunk path.
 * The ratio servebench / baseline says what the full path costs over bare JSON parsing.
 */
import { SseParser } from '../src/client/sse.js';
import { applyDataEvent, newChunkState } from '../src/client/chunk.js';
import { numberArg } from './args.js';

function streamBytes(chunks: number): Uint8Array[] {
  const parts: string[] = [];
  for (let i = 0; i < chunks; i++) {
    parts.push(
      `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":" tok${i % 97}"},"logprobs":null,"finish_reason":null}]}\n\n`,
    );
  }
  parts.push(
    'data: {"id":"chatcmpl-bench","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":' +
      chunks +
      ',"total_tokens":' +
      (chunks + 10) +
      '}}\n\ndata: [DONE]\n\n',
  );
  const all = Buffer.from(parts.join(''), 'utf8');
  const reads: Uint8Array[] = [];
  for (let offset = 0; offset < all.length; offset += 1400)
    reads.push(all.subarray(offset, Math.min(all.length, offset + 1400)));
  return reads;
}

function baseline(reads: Uint8Array[]): number {
  const decoder = new TextDecoder();
  let text = '';
  let events = 0;
  for (const read of reads) {
    text += decoder.decode(read, { stream: true });
    let cut = text.indexOf('\n\n');
    while (cut >= 0) {
      const payload = text.slice(6, cut);
      if (payload !== '[DONE]') JSON.parse(payload);
      events++;
      text = text.slice(cut + 2);
      cut = text.indexOf('\n\n');
    }
  }
  return events;
}

function servebench(reads: Uint8Array[]): number {
  const parser = new SseParser();
  const state = newChunkState();
  let events = 0;
  const at = process.hrtime.bigint();
  for (const read of reads) {
    for (const event of parser.feed(read)) {
      applyDataEvent(state, event.data, at);
      events++;
    }
  }
  return events;
}

function best(fn: () => number, repeat: number): { ms: number; events: number } {
  let bestMs = Infinity;
  let events = 0;
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    events = fn();
    bestMs = Math.min(bestMs, performance.now() - t0);
  }
  return { ms: bestMs, events };
}

function main(): void {
  const chunks = process.argv[2] === undefined ? 200_000 : numberArg('chunks', process.argv[2], 'count');
  const reads = streamBytes(chunks);
  best(() => baseline(reads), 2);
  best(() => servebench(reads), 2);
  const base = best(() => baseline(reads), 5);
  const ours = best(() => servebench(reads), 5);
  const rate = (r: { ms: number; events: number }): number => r.events / (r.ms / 1000);
  console.log(`chunks: ${chunks} in ${reads.length} reads of 1400 bytes`);
  console.log(`baseline (decode + split + JSON.parse): ${(rate(base) / 1000).toFixed(0)}k chunks/s`);
  console.log(`servebench (SseParser + chunk semantics): ${(rate(ours) / 1000).toFixed(0)}k chunks/s`);
  console.log(`ratio servebench / baseline: ${(rate(ours) / rate(base)).toFixed(2)}`);
}

try {
  main();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
