/** Feeding SSE bytes to a parser cut at arbitrary points, as the property tests do. */
import { SseParser, type SseEvent } from '../../src/client/sse.js';

/** Feeds `bytes` to `parser` cut at `points` (each taken modulo the length), then ends the stream. */
export function parseSplit(parser: SseParser, bytes: Uint8Array, points: readonly number[]): SseEvent[] {
  const cuts = [...new Set(points.map((p) => (bytes.length === 0 ? 0 : p % bytes.length)))].sort((a, b) => a - b);
  const out: SseEvent[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    out.push(...parser.feed(bytes.subarray(from, cut)));
    from = cut;
  }
  out.push(...parser.end());
  return out;
}
