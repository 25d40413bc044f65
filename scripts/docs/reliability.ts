/**
 * docs/reliability.md, rendered from the fault table the reliability tests send
 * (test/helpers/faults-catalog.ts) and the simulator's fault list (src/sim/faults.ts).
 * `npm run docs:reliability` writes it; test/reliability/fault-table.test.ts checks it is current.
 */
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_STREAM_MAX_LINE_BYTES,
  RETRY_BASE_WAIT_S,
} from '../../src/client/stream.js';
import { STALE_CONNECTION_WINDOW_MS } from '../../src/client/stale-connection.js';
import { FAULTS, type FaultDefinition } from '../../src/sim/faults.js';
import { caseFlags, FAULT_CASES, type CaseClient } from '../../test/helpers/faults-catalog.js';

/** The client flags column: the flags, and whether the request went out on a new connection. */
function clientCell(client: CaseClient): string {
  const flags = caseFlags(client) === '' ? [] : [`\`${caseFlags(client)}\``];
  if (client.newConnection === true) flags.push('new connection');
  return flags.length === 0 ? '–' : flags.join(', ');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** The fault → record table (Markdown). */
function renderFaultTable(): string {
  const head = [
    'fault (`x-sim-fault`)',
    'client flags',
    'outcome',
    '`error_type`',
    '`error_message` (pattern)',
    '`http_status`',
    'excerpt',
    'note',
  ];
  const rows = FAULT_CASES.map((c) => {
    const e = c.expect;
    const extra = [
      e.connectionRetries !== undefined ? `connection_retries ${e.connectionRetries}` : '',
      e.retriedAttempts !== undefined ? `${e.retriedAttempts} retried attempts` : '',
    ].filter((x) => x !== '');
    return [
      c.fault === 'refused' ? 'connection refused' : `\`${c.fault}\``,
      clientCell(c.client),
      e.outcome + (extra.length > 0 ? ` (${extra.join(', ')})` : ''),
      e.errorType === null ? '–' : `\`${e.errorType}\``,
      e.message === null ? '–' : `\`^${e.message}$\``,
      e.httpStatus === null ? (e.outcome === 'failed' ? 'null' : '–') : String(e.httpStatus),
      e.outcome === 'completed' ? '–' : e.redacted === true ? 'yes, redacted' : e.excerpt ? 'yes' : 'no',
      c.note,
    ].map(cell);
  });
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

function faultList(): string {
  return Object.values(FAULTS as Record<string, FaultDefinition>)
    .map((f) => {
      const args = f.args.map((a) => `:${a.name.toUpperCase()}`).join('');
      const defaults =
        f.args.length === 0 ? '' : ` (default ${f.args.map((a) => `${a.name} ${a.default}`).join(', ')})`;
      return `| \`${f.name}${args}\` | ${f.beforeResponse ? 'before the response head' : 'in the stream'} | ${cell(f.summary)}${defaults} |`;
    })
    .join('\n');
}

/** docs/reliability.md, whole (`npm run docs:reliability` writes it; a test checks it is current). */
export function renderReliabilityMarkdown(): string {
  return `# Reliability: server faults, failure records, limits and secrets

<!-- Generated from test/helpers/faults-catalog.ts and src/sim/faults.ts by \`npm run docs:reliability\` (scripts/docs/reliability.ts); edit those, not this file. -->

A benchmark must survive the server it measures. servebench turns every server fault into a
**failure record** (the run goes on, writes its result, and exits 1), never into a crash, a hang or
a silent success. This page lists what the built-in simulator can inject, and the exact record
each fault produces. Every row of the table below is a test (\`test/reliability/fault-table.test.ts\`
sends it to a real simulator over a real socket); a test also checks that this file is current.

## The failure record

Each failed request is one entry of \`failures[]\`: the reference's \`request_index\`,
\`error_type\`, \`error_message\` (at most 2,048 characters) and \`error_message_truncated\`, plus
servebench's \`http_status\` (null when no status line came), \`error_body_excerpt\` (at most
2,048 characters of the error body or of the offending stream event, secrets redacted),
\`error_at_ms\` (time from the request's start to the failure) and \`start_offset_ms\`.
\`error_type\` names are stable: the reference's Python names where the situation is the same
(\`HTTPError\`, \`URLError\`, \`TimeoutError\`, \`RemoteDisconnected\`, \`ConnectionResetError\`,
\`IncompleteRead\`, \`ValueError\`, \`AttributeError\`, \`TypeError\`, \`JSONDecodeError\`,
\`UnicodeDecodeError\`), and servebench's own otherwise (\`StreamError\`, \`SSEParseError\`,
\`ContentEncodingError\`, \`DeadlineExceeded\`, \`ResponseTooLarge\`, \`CancelledError\`).

## Fault → record

Request sent with \`max_tokens\` 6, an \`Authorization: Bearer …\` key, on a keep-alive connection
that has already carried one completed request (as a run's requests are, after its connection
warm-up) unless the row says new connection, and the flags shown
(unset: \`--timeout 30\`, no \`--request-timeout\`, \`--max-line-bytes ${DEFAULT_STREAM_MAX_LINE_BYTES}\`,
\`--max-response-bytes ${DEFAULT_MAX_RESPONSE_BYTES}\`, \`--retries 0\`).

${renderFaultTable()}

## Limits that keep a stream bounded

| flag | default | what it bounds | failure |
|---|---|---|---|
| \`--timeout S\` | 900 | the wait for the status line and between two body reads (per read: a trickle never trips it) | \`TimeoutError\` |
| \`--request-timeout S\` | none | each attempt, from just before sending to the end of the stream | \`DeadlineExceeded\` |
| \`--max-line-bytes N\` | ${DEFAULT_STREAM_MAX_LINE_BYTES} | one SSE line, and the joined \`data:\` lines of one event: what a stream holds in memory while a line is incomplete | \`SSEParseError\` |
| \`--max-response-bytes N\` | ${DEFAULT_MAX_RESPONSE_BYTES} | all body bytes of one response | \`ResponseTooLarge\` |

Memory per stream is therefore at most about one line bound plus the per-delta arrival times; an
error body is read to at most 64 KiB (2,048 characters are kept).

## Retries (\`--retries N\`, default 0)

Off by default, and then nothing changes: one attempt per request, no \`servebench.retries\` key.
With \`--retries N\` a request is sent again, up to N times, only when it cannot have started on
the server or the server said so itself: HTTP 429 or 503, or a connection that failed before any
response byte (\`URLError\`, \`RemoteDisconnected\`, \`ConnectionResetError\` before the status
line). Never after a timeout, never once a 2xx stream began. The wait is the server's
\`Retry-After\` (seconds or an HTTP date), else ${RETRY_BASE_WAIT_S} s doubling per retry, never more than
\`--retry-max-wait\` (default 30 s); an interrupt ends the wait.

The row or failure of a retried request describes its **last** attempt, timed from that attempt's
own start (so a 429 wait never inflates TTFT). Every earlier attempt is kept: in the journal on the
request (\`attempts\`), in the request's row or failure (\`attempts\`), and in the result under
\`servebench.retries\`: \`allowed\`, \`max_wait_s\`, \`retried_requests\`, \`retry_attempts\`,
\`completed_after_retry\`, and per retried request (\`request_index\`, \`outcome\`) its
\`attempts\`, each the same record as in the row (\`attempt\`, \`kind\` \`retry\`,
\`start_offset_ms\`, \`error_type\`, \`error_message\`, \`error_message_truncated\`,
\`http_status\`, \`error_body_excerpt\` cut to 256 characters, \`error_at_ms\`, \`retry_after_s\`,
\`wait_s\`); at most 1,000 requests are listed (\`listed_truncated\`).

This is distinct from the one resend servebench makes without \`--retries\`: of a request the
server cannot have acted on because it closed the kept-alive socket as the request went out (its
keep-alive timeout, or llama.cpp, which closes after every stream). It needs all of: a socket
that had already carried a completed request, no response byte, a close, reset or broken pipe,
within ${STALE_CONNECTION_WINDOW_MS} ms of the write, and no earlier such resend of the request
(\`src/client/stale-connection.ts\`; RFC 9110 §9.2.2, RFC 9112 §9.3.1). A new connection that
fails is a failure. The discarded attempt is kept in the request's row or failure under
\`attempts\` (\`kind\` \`stale-connection\`, \`start_offset_ms\`, \`error_type\`, \`error_message\`,
\`error_at_ms\`: how long it lasted, …) and counted in \`servebench.connection_retries\`; the
attempts of \`--retries\` appear there too (\`kind\` \`retry\`). With \`--cold-connections\` the
request's TTFT and E2E count from its first attempt, resend included; with the default clock
(from the write of the request that got the response) they count from the resend's write, and
the discarded attempt shows what came before. That is why \`reset_headers:0\` on a reused
socket shows \`connection_retries 1\` and on a new connection does not.

## Compressed responses

servebench sends \`accept-encoding: identity\` (as the reference does). A 2xx stream that comes back
\`Content-Encoding: gzip\` (or any coding) anyway fails with \`ContentEncodingError\`: decoding it
would make the decompressor's output, not the network, decide when each event "arrived". A
compressed *error* body is decoded (bounded) for its excerpt.

## Injecting faults

\`servebench sim --faults SPEC\`, the \`faults\` key of a sim config file (\`--sim-config\` for
\`run\`), \`startSim({ faults })\` in code, or per request with the header
\`x-sim-fault: NAME[:ARG…]\` (which wins over the SPEC; \`none\` forces no fault). Only streaming
generation requests (\`/chat/completions\`, \`/completions\` with \`stream: true\`) are faulted and
counted as arrivals; \`/models\`, \`/tokenize\`, \`/health\` and non-streaming requests never are.

\`\`\`
SPEC  := FIELD (':' FIELD)*         a ':' starts a new field only before NAME=
FIELD := rate=P                     each request faulted with probability P (0..1), seeded
       | mix=FAULT(,FAULT)*         the faults to choose from, uniformly
       | every=N                    requests N-1, 2N-1, ... (arrival index), the mix in turn
       | at=I(,I)*                  exactly these arrival indexes, the mix in turn
       | seed=N                     seed of the random choice (default: the simulator's seed)
FAULT := NAME(:NUMBER)*             e.g. stall_first:2, http_429:1.5; aliases 429, 500, 503
\`\`\`

Examples: \`rate=0.1:mix=429,reset_mid,stall_first:2\` (10% of requests, one of three faults);
\`every=5:mix=http_500\`; \`at=0,3:mix=reset_headers\`; a bare \`reset_mid\` faults every request.
With a given seed the fault of arrival *i* is always the same (arrival order itself depends on the
client). The response carries \`x-sim-fault: NAME:ARGS\` when a fault was injected, and
\`SimHandle.faultCounts()\` counts them.

| fault | acts | what the server does |
|---|---|---|
${faultList()}

**Connection refused** cannot be a per-request fault (a refusal happens before any request
exists): point the client at a port with nothing listening, e.g. start a simulator, note its URL
and close it (\`startSim()\` then \`close()\`), as the \`refused\` row does.

\`after_chunks\` counts token chunks: the fault replaces what would follow the Nth one (or the
finish, usage and \`[DONE]\` events when the stream is shorter).

## Secrets

The API key comes only from an environment variable (\`--api-key-env NAME\`) or a file
(\`--api-key-file FILE\`: a regular file, or a link to one; at most 64 KiB; trimmed; one line;
a warning when group or others may read it). It lives in process memory and in the
\`Authorization\` header. Everything a server sends back is redacted before it is kept: the key
(and the whole header value) raw, JSON-escaped, URL-encoded, and base64/base64url-encoded at any
alignment (\`base64Cores\` in src/client/errors.ts), plus anything shaped like \`Bearer <token>\`.
A test plants a key, runs the CLI against a simulator that echoes request headers in error bodies,
and searches stdout, stderr, the result and the journal for the key in all those forms.
Base URLs with credentials, a query, a fragment or a scheme other than http/https are refused.

## Input files

Every file servebench reads is bounded and checked, and a problem is one line naming the file,
the line or JSON path, and the reason (exit 2): results (read whole up to 64 MiB; a larger result is read as a stream by \`validate\`, \`show\`, \`compare\`, \`report\` and \`list\`: at most 16 GiB of file, 64 MiB outside \`request_timings\` and \`failures\`, 1 MiB per row or failure, 20,000,000 entries per list — \`STREAM_LIMITS\` in src/result/read-streamed.ts, docs/output-files.md#reading-large-result-files), datasets (256 MiB), traces
(256 MiB), manifests (4 MiB), sim configs (1 MiB), context-bucket files (1 MiB), journals for
\`rebuild\` (500 MiB), tokenizer files (256 MiB), API key files (64 KiB). Non-regular files (FIFOs,
devices, directories) are refused without blocking; text must be valid UTF-8. Output files are
checked together before any request (writable parent, no two the same file, none an input), then
written atomically through a temporary file and a rename, never through a symbolic link and never
over a non-regular file; the journal is always created new (\`O_EXCL\`), never over an existing file.
`;
}
