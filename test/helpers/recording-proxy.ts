/**
 * A recording HTTP proxy on 127.0.0.1 port 0 in front of a real server (the simulator): every
 * request is forwarded unchanged and its answer streamed back as it comes, and each generation
 * request (chat, Responses, Messages) is recorded with its path, its JSON request body, the raw
 * text of its answer and, for chat, the visible text of its streamed reply (the `content` deltas
 * of its SSE events), so a test can check what a run sent against what the server had answered
 * before.
 */
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One generation request that went through the proxy. */
export interface RecordedExchange {
  /** The request's path, e.g. `/v1/chat/completions`. */
  path: string;
  /** The request body, parsed. */
  body: { messages?: { role: string; content: string }[]; max_tokens?: number } & Record<string, unknown>;
  /** Chat: the reply's visible text, every `choices[].delta.content` of the stream, in order. */
  reply: string;
  /** The answer's bytes as text. */
  raw: string;
}

/** The generation endpoints recorded. */
const RECORDED = ['/chat/completions', '/responses', '/messages'];

export interface RecordingProxy {
  /** Base URL with `/v1`, as `--base-url`. */
  url: string;
  exchanges: RecordedExchange[];
  close(): Promise<void>;
}

/** The visible text of an SSE chat stream. */
function streamedContent(text: string): string {
  let out = '';
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '' || data === '[DONE]') continue;
    try {
      const chunk = JSON.parse(data) as { choices?: { delta?: { content?: unknown } }[] };
      for (const choice of chunk.choices ?? []) {
        const content = choice.delta?.content;
        if (typeof content === 'string') out += content;
      }
    } catch {
      // not a JSON event: nothing visible
    }
  }
  return out;
}

/** Starts the proxy in front of `upstream` (an origin such as `http://127.0.0.1:PORT`). */
export async function startRecordingProxy(upstream: string): Promise<RecordingProxy> {
  const target = new URL(upstream);
  const exchanges: RecordedExchange[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
      const forward = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          const answerChunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => {
            answerChunks.push(chunk);
            res.write(chunk);
          });
          answer.on('end', () => {
            res.end();
            const path = req.url ?? '';
            if (req.method === 'POST' && RECORDED.some((end) => path.endsWith(end))) {
              const raw = Buffer.concat(answerChunks).toString('utf8');
              exchanges.push({
                path,
                body: JSON.parse(body.toString('utf8')) as RecordedExchange['body'],
                reply: path.endsWith('/chat/completions') ? streamedContent(raw) : '',
                raw,
              });
            }
          });
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    exchanges,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
