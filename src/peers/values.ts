/** Reading one field of a peer file: a number as it is, a non-empty string, else null (not recorded). */
export const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
export const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
