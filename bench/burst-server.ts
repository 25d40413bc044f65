/**
 * The roofline's burst load (roofline.ts): an OpenAI-compatible stub whose every streamed chat
 * completion is `--events` one-token content events, a usage event and `[DONE]`, written at once
 * from one prebuilt buffer, so the server costs next to nothing and the client's parsing is all
 * that is measured (the shape of MLCommons' endpoints client benchmark). Answers
 * `GET /v1/models` too; anything else is a 404.
 *
 *   node dist/bench/burst-server.js --events 1000     # prints "listening on http://127.0.0.1:PORT/v1"
 */
import { createServer } from 'node:http';
import { isEntryModule } from '../src/util/entry.js';
import { numberArg } from './args.js';

const MODEL = 'servebench-sim';

/** The SSE body of one response: `events` content events of one token each, usage, [DONE]. */
export function burstBody(events: number): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < events; i++)
    parts.push(
      `data: {"id":"chatcmpl-burst","object":"chat.completion.chunk","created":1700000000,"model":"${MODEL}","choices":[{"index":0,"delta":{"content":" tok${i % 97}"},"logprobs":null,"finish_reason":${i === events - 1 ? '"length"' : 'null'}}]}\n\n`,
    );
  parts.push(
    `data: {"id":"chatcmpl-burst","object":"chat.completion.chunk","created":1700000000,"model":"${MODEL}","choices":[],"usage":{"prompt_tokens":16,"completion_tokens":${events},"total_tokens":${events + 16}}}\n\ndata: [DONE]\n\n`,
  );
  return Buffer.from(parts.join(''), 'utf8');
}

function main(): void {
  const argv = process.argv.slice(2);
  const events = argv[0] === '--events' ? numberArg('--events', argv[1], 'count') : 1000;
  if (argv.length > 0 && argv[0] !== '--events') throw new Error(`unknown argument ${argv[0]} (use --events N)`);
  const body = burstBody(events);
  const models = JSON.stringify({ object: 'list', data: [{ id: MODEL, object: 'model', owned_by: 'bench' }] });
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(models);
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    // The request body is read (and dropped) before the answer, as a server would.
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('burst server: no TCP address');
    console.log(`listening on http://127.0.0.1:${address.port}/v1`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

if (isEntryModule(import.meta.url))
  try {
    main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
