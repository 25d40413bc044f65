/**
 * The forms a leaked API key could take in any output: raw, JSON-escaped, URL-encoded, and
 * base64/base64url at each of the three byte alignments it can have inside a longer encoded value
 * (only the characters made entirely of key bytes, which appear wherever the key is encoded).
 */
export function secretForms(key: string): string[] {
  const forms = new Set<string>([
    key,
    JSON.stringify(key).slice(1, -1),
    encodeURIComponent(key),
    Buffer.from(key).toString('base64'),
    Buffer.from(key).toString('base64url'),
  ]);
  const bytes = Buffer.from(key, 'utf8');
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset, 0x20), bytes]);
    const from = Math.ceil(offset / 3) * 4;
    const to = Math.floor((offset + bytes.length) / 3) * 4;
    for (const encoding of ['base64', 'base64url'] as const) forms.add(padded.toString(encoding).slice(from, to));
  }
  return [...forms].filter((form) => form.length >= 8);
}

/** The forms of `key` found in `text` (empty when none leaked). */
export function leakedForms(text: string, key: string): string[] {
  return secretForms(key).filter((form) => text.includes(form));
}

/** A key long enough that every encoded form is distinctive. */
export const PLANTED_KEY = 'sk-servebench-PLANTED-9f8e7d6c5b4a3210-secret';
