/**
 * A counting HTTP proxy on 127.0.0.1 port 0 in front of a real server (usually the simulator): it
 * records every request it receives (method, path, and for chat requests their `max_tokens`) and
 * forwards it unchanged, so a test can prove what a run sent — or that it sent nothing. Optionally
 * it inflates `usage.prompt_tokens` in the answers to calibration probes (`max_tokens` 1), which
 * makes the server's tokenize endpoint and its usage disagree.
 */
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the proxy received. */
export interface SeenRequest {
  method: string;
  path: string;
  /** `max_tokens` of a JSON body that has one (chat requests), else null. */
  maxTokens: number | null;
}

export interface CountingProxy {
  /** Base URL with `/v1`, as `--base-url`. */
  url: string;
  seen: SeenRequest[];
  /** Chat requests other than calibration probes (which ask for `max_tokens` 1). */
  generations(): SeenRequest[];
  close(): Promise<void>;
}

export interface ProxyOptions {
  /** Added to every `prompt_tokens` in the answer to a probe (`max_tokens` 1). */
  probeUsageExtra?: number;
}

/** Starts the proxy in front of `upstream` (an origin such as `http://127.0.0.1:PORT`). */
export async function startCountingProxy(upstream: string, options: ProxyOptions = {}): Promise<CountingProxy> {
  const target = new URL(upstream);
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let maxTokens: number | null = null;
      try {
        const parsed = JSON.parse(body.toString('utf8')) as { max_tokens?: unknown };
        if (typeof parsed.max_tokens === 'number') maxTokens = parsed.max_tokens;
      } catch {
        // not JSON (a GET): no max_tokens
      }
      seen.push({ method: req.method ?? '', path: req.url ?? '', maxTokens });
      const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
      const rewrite = options.probeUsageExtra !== undefined && maxTokens === 1;
      const upstreamRequest = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (answer) => {
          if (!rewrite) {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            return;
          }
          const parts: Buffer[] = [];
          answer.on('data', (part: Buffer) => parts.push(part));
          answer.on('end', () => {
            const text = Buffer.concat(parts)
              .toString('utf8')
              .replace(
                /"prompt_tokens":\s*(\d+)/g,
                (_m, n: string) => `"prompt_tokens":${Number(n) + (options.probeUsageExtra ?? 0)}`,
              );
            const { 'content-length': _length, 'transfer-encoding': _encoding, ...rest } = answer.headers;
            res.writeHead(answer.statusCode ?? 502, { ...rest, 'content-length': Buffer.byteLength(text) });
            res.end(text);
          });
        },
      );
      upstreamRequest.on('error', () => res.destroy());
      upstreamRequest.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    seen,
    generations: () => seen.filter((r) => r.path.endsWith('/chat/completions') && r.maxTokens !== 1),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
