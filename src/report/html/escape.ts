/**
 * Escaping for the HTML report. Every string that came from a result file (model names, error
 * messages, labels) passes through {@link escapeHtml} before it reaches markup, and all chart
 * data travels as JSON inside `<script type="application/json">`, made inert by
 * {@link embedJson}: a result file cannot close the script element or start markup.
 */

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text safe in element content and in quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/**
 * JSON for a `<script type="application/json">` block: `<`, `>` and `&` become `\u003c`,
 * `\u003e`, `\u0026` (so neither `</script>` nor `<!--` can appear), and U+2028/U+2029 are
 * escaped too (legal in JSON, but line terminators to older JavaScript parsers). JSON.parse
 * reads the escapes back to the same characters.
 */
export function embedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Escaped definition text where `backticks` become <code> (escaping first keeps it safe). */
export function richText(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}
