/** Checks a target base URL the way the reference does (docs/protocol.md#run-flags-and-defaults), with one clear line per problem. */
import { UsageError } from '../util/errors.js';

/**
 * Accepts only absolute http(s) URLs with a host and no credentials, query or fragment: such parts
 * would be recorded verbatim in the result (`base_url`) and could carry secrets.
 * `localhost` is refused as in the reference ("use 127.0.0.1"): it may resolve to ::1 on one
 * machine and 127.0.0.1 on another, which changes what is measured.
 */
export function checkBaseUrl(text: string, flag = '--base-url'): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${flag}: not an absolute URL: '${redactUrlText(text)}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${flag}: scheme must be http or https, got '${url.protocol.replace(/:$/, '')}'`);
  }
  if (url.username !== '' || url.password !== '')
    throw new UsageError(`${flag}: credentials in the URL are not allowed (use --api-key-env)`);
  if (url.search !== '' || text.includes('?')) throw new UsageError(`${flag}: a query string is not allowed`);
  if (url.hash !== '' || text.includes('#')) throw new UsageError(`${flag}: a fragment is not allowed`);
  if (url.hostname === '') throw new UsageError(`${flag}: the URL has no host`);
  if (url.hostname.toLowerCase() === 'localhost')
    throw new UsageError(`${flag}: host 'localhost' is ambiguous; use 127.0.0.1`);
  return text;
}

/** Removes anything that looks like credentials from a URL-ish text before it is shown. */
function redactUrlText(text: string): string {
  return text.replace(/\/\/[^/@\s]*@/, '//[redacted]@').replace(/\?.*$/, '?[redacted]');
}
