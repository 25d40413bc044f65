/**
 * Which URL is scraped, with which headers, and what the result records of it. Pure.
 *
 * Secrets: the run's API key goes only to the base URL's own origin (scheme, host and port): a
 * metrics URL elsewhere (a sidecar exporter, another host) never sees it. Credentials written in
 * the metrics URL are sent as Basic authentication to that URL alone. The recorded `url` has
 * neither credentials nor the query (which may hold a token), like the result's base URL.
 */

/** `--server-metrics` once resolved: the base URL's /metrics (auto) or a URL given. */
export type ScrapeChoice = { kind: 'auto' } | { kind: 'url'; url: string };

/** The endpoint one run scrapes. */
export interface ScrapeEndpoint {
  /** What is fetched: the URL without its credentials (they travel in `headers`). */
  url: string;
  /** What the result records: no credentials, no query, no fragment. */
  recordedUrl: string;
  source: 'auto' | 'flag';
  headers: Record<string, string>;
}

/** Prometheus's text format, not OpenMetrics or protobuf: what servers send a plain scraper. */
const ACCEPT = 'text/plain;version=0.0.4;q=1,*/*;q=0.1';

/** The endpoint for `choice` against `baseUrl`; `apiKey` is the run's key (null for none). */
export function scrapeEndpoint(choice: ScrapeChoice, baseUrl: string, apiKey: string | null): ScrapeEndpoint {
  const base = new URL(baseUrl);
  const url = choice.kind === 'auto' ? new URL('/metrics', base.origin) : new URL(choice.url);
  const headers: Record<string, string> = { accept: ACCEPT };
  if (url.username !== '' || url.password !== '') {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    headers['authorization'] = `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
  } else if (apiKey !== null && url.origin === base.origin) {
    headers['authorization'] = `Bearer ${apiKey}`;
  }
  url.username = '';
  url.password = '';
  url.hash = '';
  const recorded = new URL(url.href);
  recorded.search = '';
  return {
    url: url.href,
    recordedUrl: recorded.href,
    source: choice.kind === 'auto' ? 'auto' : 'flag',
    headers,
  };
}

/** The secrets in `headers` (the credential part of Authorization), to keep out of any note. */
export function headerSecrets(headers: Readonly<Record<string, string>>): string[] {
  const authorization = headers['authorization'];
  if (authorization === undefined) return [];
  const credential = authorization.replace(/^\S+\s+/, '');
  const secrets = [authorization, credential];
  // A Basic credential's decoded password could be echoed back too.
  if (/^basic\s/i.test(authorization)) {
    const decoded = Buffer.from(credential, 'base64').toString('utf8');
    secrets.push(decoded.slice(decoded.indexOf(':') + 1));
  }
  return secrets.filter((s) => s.length >= 4);
}

/** `text` with every secret replaced, longest first (so a part never leaves the rest visible). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join('[redacted]');
  return out;
}
