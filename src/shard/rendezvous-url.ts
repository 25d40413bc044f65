/**
 * The `--rendezvous` address: `redis://[user:password@]HOST:PORT/NAME` or `rediss://…` (TLS).
 *
 * Parsed by hand rather than with WHATWG `URL`: a password people paste is often not
 * percent-encoded (`p@ss/word`), and `URL` would then read part of it as the host or the path and
 * a message about that host or path would echo the secret. Here the user information ends at the
 * LAST `@` (neither HOST nor NAME may hold one), so the whole password is always set aside before
 * anything else is read, and no message ever contains it: messages quote the text with the
 * password replaced by `***`, and `display` leaves it out.
 */
import { UsageError } from '../util/errors.js';

/** Redis's own default port. */
const DEFAULT_PORT = 6379;
/** The rendezvous NAME becomes part of Redis key names: a short, shell- and key-safe word. */
const NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
/** A DNS name or an IPv4 address (an IPv6 address goes in brackets and is checked apart). */
const HOST_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
const IPV6_PATTERN = /^[0-9A-Fa-f:.]+(?:%[A-Za-z0-9._-]+)?$/;
/** Quoted input is cut to this length so one bad flag stays one readable line. */
const QUOTE_LIMIT = 120;

/** How to reach the Redis server (what the client library is given). */
export interface RendezvousConnectionOptions {
  host: string;
  port: number;
  username?: string;
  password?: string;
  tls: boolean;
}

export interface RendezvousAddress {
  connection: RendezvousConnectionOptions;
  /** The rendezvous name: every key of this rendezvous is `servebench:<name>:…`. */
  name: string;
  /** The address without its password, for messages: `redis://user@host:6379/name`. */
  display: string;
}

/** Parses a `--rendezvous` value; a malformed one is a {@link UsageError} of one line that never holds the password. */
export function parseRendezvousUrl(text: string): RendezvousAddress {
  const schemeMatch = /^(rediss?):\/\//i.exec(text);
  const rest = schemeMatch === null ? text : text.slice(schemeMatch[0].length);
  const at = rest.lastIndexOf('@');
  const userInfo = at < 0 ? null : rest.slice(0, at);
  const hostPart = at < 0 ? rest : rest.slice(at + 1);
  const colon = userInfo === null ? -1 : userInfo.indexOf(':');
  const rawUser = userInfo === null ? null : colon < 0 ? userInfo : userInfo.slice(0, colon);
  const rawPassword = userInfo === null || colon < 0 ? null : userInfo.slice(colon + 1);

  const fail = (why: string): UsageError =>
    new UsageError(`--rendezvous ${quoteRedacted(text, text.length - rest.length, at, colon, rawUser)}: ${why}`);

  if (schemeMatch === null) throw fail('expected redis://[user:password@]HOST:PORT/NAME (or rediss:// for TLS)');
  const scheme = schemeMatch[1]!.toLowerCase();

  const slash = hostPart.indexOf('/');
  if (slash < 0) throw fail('the rendezvous NAME is missing (redis://HOST:PORT/NAME)');
  const hostPort = hostPart.slice(0, slash);
  const name = hostPart.slice(slash + 1);
  if (!NAME_PATTERN.test(name)) throw fail('NAME must be 1 to 64 characters of A-Z a-z 0-9 . _ -');

  const { host, port, hostText } = splitHostPort(hostPort, fail);

  const username = rawUser === null || rawUser === '' ? undefined : decode(rawUser, 'user name', fail);
  const password = rawPassword === null || rawPassword === '' ? undefined : decode(rawPassword, 'password', fail);

  const connection: RendezvousConnectionOptions = { host, port, tls: scheme === 'rediss' };
  if (username !== undefined) connection.username = username;
  if (password !== undefined) connection.password = password;
  const display = `${scheme}://${username === undefined ? '' : `${encodeURIComponent(username)}@`}${hostText}:${port}/${name}`;
  return { connection, name, display };
}

function splitHostPort(
  hostPort: string,
  fail: (why: string) => UsageError,
): { host: string; port: number; hostText: string } {
  let host: string;
  let hostText: string;
  let portText: string | null;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close < 0) throw fail('an IPv6 HOST needs its closing bracket: [::1]:6379');
    host = hostPort.slice(1, close);
    if (!IPV6_PATTERN.test(host) || !host.includes(':')) throw fail('the bracketed HOST is not an IPv6 address');
    hostText = `[${host}]`;
    const after = hostPort.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) throw fail('expected :PORT after the bracketed IPv6 HOST');
    portText = after === '' ? null : after.slice(1);
  } else {
    const colons = hostPort.split(':').length - 1;
    if (colons > 1) throw fail('an IPv6 HOST goes in brackets: redis://[::1]:6379/NAME');
    const colon = hostPort.indexOf(':');
    host = colon < 0 ? hostPort : hostPort.slice(0, colon);
    portText = colon < 0 ? null : hostPort.slice(colon + 1);
    if (host === '') throw fail('the HOST is missing');
    if (!HOST_PATTERN.test(host)) throw fail('the HOST is not a host name or an IP address');
    hostText = host;
  }
  let port = DEFAULT_PORT;
  if (portText !== null) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
      throw fail('PORT must be a whole number from 1 to 65535');
    }
    port = Number(portText);
  }
  return { host, port, hostText };
}

function decode(raw: string, what: string, fail: (why: string) => UsageError): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    // Never quote the part: it may be the password itself.
    throw fail(`the ${what} is not valid percent-encoding (write a literal % as %25)`);
  }
}

/**
 * The input for a message: the password (everything between the user name's `:` and the last
 * `@`) replaced by `***`, control characters escaped (one line), cut to a readable length.
 */
function quoteRedacted(text: string, schemeEnd: number, at: number, colon: number, rawUser: string | null): string {
  const redacted =
    at >= 0 && colon >= 0 && rawUser !== null
      ? `${text.slice(0, schemeEnd)}${rawUser}:***${text.slice(schemeEnd + at)}`
      : text;
  const cut = redacted.length > QUOTE_LIMIT ? `${redacted.slice(0, QUOTE_LIMIT)}…` : redacted;
  return JSON.stringify(cut);
}
