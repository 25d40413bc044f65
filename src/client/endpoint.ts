/** Where an endpoint of a target lives. */

/** Joins the base URL and an endpoint path the way the reference does: `base.rstrip("/") + path`. */
export function endpointUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + path;
}
