/** Checks on a generated HTML report shared by the report tests. */
import { escapeHtml } from '../../src/report/html/escape.js';

/**
 * Every `http(s)://` in a page must be data, not a resource: inside the JSON data block, inside
 * a vendored library's license banner, or an escaped endpoint shown in a table cell.
 */
export function externalReferences(html: string, endpoints: readonly string[]): string[] {
  let rest = html.replace(/<script type="application\/json" id="sb-data">[\s\S]*?<\/script>/, '');
  rest = rest.replace(/\/\*![\s\S]*?\*\//g, '');
  for (const url of endpoints) rest = rest.split(`<td>${escapeHtml(url)}</td>`).join('');
  const problems = [...rest.matchAll(/https?:\/\/[^\s"'<>)]*/g)].map((m) => m[0]);
  // Markup and CSS (scripts aside, whose code may say `new URL(`): no resource-loading attribute, element or rule.
  const markup = rest.replace(/<script>[\s\S]*?<\/script>/g, '');
  for (const pattern of [
    /\b(?:src|href|srcset|action|poster|formaction|background)\s*=/i,
    /url\(/i,
    /@import/i,
    /<(?:link|iframe|img|object|embed|base)\b/i,
  ]) {
    const hit = pattern.exec(markup);
    if (hit) problems.push(hit[0]);
  }
  return problems;
}
