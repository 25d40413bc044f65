/** Where an endpoint of a target lives, and the headers its API wants. */
import { ANTHROPIC_VERSION, type Endpoint } from '../record/endpoint.js';

/** Joins the base URL and an endpoint path the way the reference does: `base.rstrip("/") + path`. */
export function endpointUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + path;
}

/**
 * The request headers for `endpoint`. The Anthropic Messages API authenticates with `x-api-key`
 * (the bare key, no `Bearer`) and wants `anthropic-version`; the key moves there from
 * `authorization`, which is not sent, so it travels once. The redactor knows both names.
 */
export function endpointHeaders(endpoint: Endpoint, headers: Readonly<Record<string, string>>): Record<string, string> {
  if (endpoint !== 'messages') return { ...headers };
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'authorization') out['x-api-key'] = value.replace(/^\s*bearer\s+/i, '');
    else out[name] = value;
  }
  out['anthropic-version'] ??= ANTHROPIC_VERSION;
  return out;
}
