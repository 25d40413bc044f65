/**
 * A minimal streaming client for the simulator tests: plain fetch, timestamps taken as each
 * network read arrives (performance.now), SSE split on blank lines. Not a test file itself.
 */

/** One parsed SSE `data:` event and when its bytes arrived (ms since the request started). */
export interface SseEvent {
  tMs: number;
  data: string;
  json: Record<string, any> | null;
}

/** What a streamed request looked like from the client side. */
export interface StreamResult {
  status: number;
  headers: Headers;
  events: SseEvent[];
  /** First event with a non-empty `content` delta (docs/protocol.md#chunk-handling), ms. */
  ttftMs: number | null;
  /** First event with non-empty reasoning or content, ms. */
  firstOutputMs: number | null;
  /** Response fully read, ms. */
  e2eMs: number;
  id: string | null;
  content: string;
  reasoning: string;
  usage: Record<string, any> | null;
  finishReason: string | null;
}

/** POST JSON to `url`. */
export function post(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

/**
 * Stream a chat (or completion) request and time every event.
 * `onEvent` may return true to abort the request right there (client disconnect).
 */
export async function streamRequest(
  url: string,
  body: Record<string, unknown>,
  onEvent?: (e: SseEvent) => boolean | void,
): Promise<StreamResult> {
  const controller = new AbortController();
  const t0 = performance.now();
  const res = await post(
    url,
    { stream: true, stream_options: { include_usage: true }, ...body },
    { signal: controller.signal },
  );
  const result: StreamResult = {
    status: res.status,
    headers: res.headers,
    events: [],
    ttftMs: null,
    firstOutputMs: null,
    e2eMs: 0,
    id: null,
    content: '',
    reasoning: '',
    usage: null,
    finishReason: null,
  };
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
      const tMs = performance.now() - t0;
      buffer += decoder.decode(bytes, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = block.startsWith('data: ') ? block.slice(6) : block;
        let json: Record<string, any> | null = null;
        try {
          json = data === '[DONE]' ? null : (JSON.parse(data) as Record<string, any>);
        } catch {
          json = null;
        }
        const event = { tMs, data, json };
        result.events.push(event);
        absorb(result, event);
        if (onEvent?.(event) === true) {
          controller.abort();
          result.e2eMs = performance.now() - t0;
          return result;
        }
      }
    }
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err;
  }
  result.e2eMs = performance.now() - t0;
  return result;
}

function absorb(r: StreamResult, e: SseEvent): void {
  const j = e.json;
  if (j === null) return;
  r.id ??= typeof j['id'] === 'string' ? j['id'] : null;
  if (j['usage']) r.usage = j['usage'];
  for (const choice of (j['choices'] ?? []) as Array<Record<string, any>>) {
    const delta = (choice['delta'] ?? {}) as Record<string, any>;
    const reasoning = delta['reasoning_content'] || delta['reasoning'];
    const content = delta['content'] ?? choice['text'];
    if (reasoning) {
      r.reasoning += reasoning;
      r.firstOutputMs ??= e.tMs;
    }
    if (content) {
      r.content += content;
      r.firstOutputMs ??= e.tMs;
      r.ttftMs ??= e.tMs;
    }
    if (choice['finish_reason']) r.finishReason = choice['finish_reason'];
  }
}

/** The p-quantile (nearest rank) of `values`. */
export function quantile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
}

/** Poll `predicate` every 5 ms until true or `timeoutMs`. */
export async function waitFor(predicate: () => boolean, timeoutMs = 2000): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  while (performance.now() < end) {
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, 5));
  }
  return predicate();
}
