/**
 * The roofline's baseline (roofline.ts): the least a Node client must do to measure a streamed
 * chat completion. node:http with a keep-alive agent, a closed loop of `--concurrency` requests,
 * each response's bytes decoded and split on blank lines, every `data:` event parsed with
 * `JSON.parse` and its content read, and the first and last arrival of each request stamped on
 * the monotonic clock. No result file, no plan, no checks. Its prompts are `--prompt-chars`
 * characters (768 by default: the 256 tokens at 3 characters a token that roofline.ts has
 * servebench plan), so both clients send bodies of the same size.
 *
 *   node dist/bench/minimal-client.js --url http://127.0.0.1:PORT --concurrency 64 --requests 20000 --max-tokens 16
 *
 * Prints one JSON line: {"requests","events","failed","wall_s"}.
 */
import { Agent, request } from 'node:http';
import { isEntryModule } from '../src/util/entry.js';
import { numberArg } from './args.js';

interface Options {
  url: string;
  concurrency: number;
  requests: number;
  maxTokens: number;
  promptChars: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { url: '', concurrency: 64, requests: 1000, maxTokens: 16, promptChars: 768 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--url') options.url = value ?? '';
    else if (flag === '--concurrency') options.concurrency = numberArg(flag, value, 'count');
    else if (flag === '--requests') options.requests = numberArg(flag, value, 'count');
    else if (flag === '--max-tokens') options.maxTokens = numberArg(flag, value, 'count');
    else if (flag === '--prompt-chars') options.promptChars = numberArg(flag, value, 'count');
    else
      throw new Error(`unknown argument ${flag} (use --url, --concurrency, --requests, --max-tokens, --prompt-chars)`);
  }
  if (options.url === '') throw new Error('--url: expected the server, e.g. http://127.0.0.1:8000');
  return options;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const target = new URL('/v1/chat/completions', options.url);
  const filler = 'def helper():\n    return compute()  # routine context\n'.repeat(Math.ceil(options.promptChars / 50));
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const ttft = new Float64Array(options.requests);
  const e2e = new Float64Array(options.requests);
  let next = 0;
  let events = 0;
  let failed = 0;

  const one = (index: number): Promise<void> =>
    new Promise((done) => {
      const body = JSON.stringify({
        model: 'servebench-sim',
        messages: [{ role: 'user', content: `request ${index}\n${filler}`.slice(0, options.promptChars) }],
        max_tokens: options.maxTokens,
        ignore_eos: true,
        stream: true,
        stream_options: { include_usage: true },
      });
      const start = performance.now();
      let first = 0;
      const req = request(
        target,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          if (res.statusCode !== 200) failed++;
          res.setEncoding('utf8');
          let text = '';
          res.on('data', (piece: string) => {
            const now = performance.now();
            text += piece;
            let cut = text.indexOf('\n\n');
            while (cut >= 0) {
              const line = text.slice(0, cut);
              text = text.slice(cut + 2);
              cut = text.indexOf('\n\n');
              if (!line.startsWith('data: ')) continue;
              const payload = line.slice(6);
              if (payload === '[DONE]') continue;
              const event = JSON.parse(payload) as { choices?: { delta?: { content?: string } }[] };
              events++;
              if (first === 0 && event.choices?.[0]?.delta?.content !== undefined) first = now;
            }
          });
          res.on('end', () => {
            ttft[index] = first - start;
            e2e[index] = performance.now() - start;
            done();
          });
        },
      );
      req.on('error', () => {
        failed++;
        done();
      });
      req.end(body);
    });

  const t0 = performance.now();
  const slot = async (): Promise<void> => {
    while (next < options.requests) await one(next++);
  };
  await Promise.all(Array.from({ length: options.concurrency }, slot));
  agent.destroy();
  console.log(JSON.stringify({ requests: options.requests, events, failed, wall_s: (performance.now() - t0) / 1000 }));
}

if (isEntryModule(import.meta.url))
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
