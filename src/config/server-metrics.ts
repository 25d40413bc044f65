/**
 * `--server-metrics URL|auto|off` and `--scrape-interval S`: where the server's own Prometheus
 * metrics are scraped during the run (src/scrape/). Checked here, before anything is sent: a
 * malformed URL is refused in one line, never discovered mid-run.
 */
import { UsageError } from '../util/errors.js';

/** What `--server-metrics` asks for: the base URL's origin + /metrics if it answers, nothing, or this URL. */
export type ServerMetricsChoice = { kind: 'auto' } | { kind: 'off' } | { kind: 'url'; url: string };

/**
 * Parses the flag's value. A URL must be absolute http(s) with a host and no fragment; user and
 * password are allowed (sent as Basic authentication, left out of the result), and so is a query
 * (sent, left out of the result). The message never repeats the credentials.
 */
export function parseServerMetrics(text: string): ServerMetricsChoice {
  if (text === 'auto' || text === 'off') return { kind: text };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--server-metrics: expected auto, off or an absolute http(s) URL, got '${redacted(text)}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--server-metrics: scheme must be http or https, got '${url.protocol.replace(/:$/, '')}'`);
  if (url.hostname === '') throw new UsageError('--server-metrics: the URL has no host');
  if (url.hash !== '' || text.includes('#')) throw new UsageError('--server-metrics: a fragment is not allowed');
  return { kind: 'url', url: url.href };
}

/** The text with anything like credentials or a query replaced, for a message. */
function redacted(text: string): string {
  return text.replace(/\/\/[^/@\s]*@/, '//[redacted]@').replace(/\?.*$/, '?[redacted]');
}
