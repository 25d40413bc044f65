/**
 * Serves manifests: a TOML file of named targets (docs/protocol.md#targets-and-provenance). servebench reads either
 *   [tiers.NAME]  port = 8001 | base_url = "...", model = "...", engine = "...", gpu_role = "..."
 * or an array of tables [[tier]] with the same keys plus `name`. `gpu` is accepted for `gpu_role`.
 */
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import { InputFileError, UsageError } from '../util/errors.js';
import { readInputFile } from '../util/read-file.js';

export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

const tierSchema = z
  .object({
    name: z.string().min(1).optional(),
    port: z.number().int().min(1).max(65535).optional(),
    base_url: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    engine: z.string().optional(),
    gpu_role: z.string().optional(),
    gpu: z.string().optional(),
  })
  .loose();

/** One resolved tier. */
export interface ManifestTier {
  name: string;
  baseUrl: string | null;
  model: string | null;
  engine: string | null;
  gpu: string | null;
}

/** Reads the manifest and returns the named tier; errors name the file and what is wrong. */
export function loadManifestTier(file: string, tierName: string): ManifestTier {
  const { text } = readInputFile(file, MAX_MANIFEST_BYTES, 'manifest');
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text);
  } catch (error) {
    // smol-toml appends a code excerpt; keep the first line and name the line and column.
    const e = error as Error & { line?: number; column?: number };
    const message = e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(error);
    const where = e.line !== undefined ? ` (line ${e.line}, column ${e.column ?? '?'})` : '';
    throw new InputFileError(file, `not valid TOML: ${message}${where}`);
  }
  const entries = collectTiers(doc, file);
  const raw = entries.get(tierName);
  if (raw === undefined) {
    const known = [...entries.keys()].join(', ') || 'none';
    throw new UsageError(`--tier: '${tierName}' is not in ${file} (tiers: ${known})`);
  }
  const parsed = tierSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.map(String).join('.') ?? '';
    throw new InputFileError(
      file,
      `tier '${tierName}': ${path === '' ? '' : `${path}: `}${issue?.message ?? 'invalid'}`,
    );
  }
  const tier = parsed.data;
  if (tier.port === undefined && tier.base_url === undefined) {
    throw new InputFileError(file, `tier '${tierName}': needs port or base_url`);
  }
  return {
    name: tierName,
    baseUrl: tier.base_url ?? `http://127.0.0.1:${String(tier.port)}/v1`,
    model: tier.model ?? null,
    engine: tier.engine ?? null,
    gpu: tier.gpu_role ?? tier.gpu ?? null,
  };
}

function collectTiers(doc: Record<string, unknown>, file: string): Map<string, unknown> {
  const entries = new Map<string, unknown>();
  const tables = doc['tiers'];
  if (tables !== undefined) {
    if (typeof tables !== 'object' || tables === null || Array.isArray(tables)) {
      throw new InputFileError(file, "'tiers' must be a table of tables");
    }
    for (const [name, value] of Object.entries(tables)) entries.set(name, value);
  }
  const list = doc['tier'];
  if (list !== undefined) {
    if (!Array.isArray(list)) throw new InputFileError(file, "'tier' must be an array of tables ([[tier]])");
    list.forEach((value, index) => {
      const name = (value as { name?: unknown }).name;
      if (typeof name !== 'string' || name === '') throw new InputFileError(file, `tier[${index}]: missing name`);
      entries.set(name, value);
    });
  }
  return entries;
}
