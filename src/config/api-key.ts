/**
 * Where the API key comes from: an environment variable (`--api-key-env NAME`) or a file
 * (`--api-key-file FILE`), never a flag value (it would sit in the shell history and in `ps`).
 * The key lives only in process memory and in the `Authorization` header; nothing here puts it in
 * a message: every error names the variable or the file, never the content.
 */
import { InputFileError, UsageError } from '../util/errors.js';
import { readInputFile } from '../util/read-file.js';

/** Largest key file read: real keys are under 1 KiB. */
export const MAX_API_KEY_FILE_BYTES = 64 * 1024;

/** A usable key: one line of visible characters (no control characters, no inner whitespace line breaks). */
function checkKey(key: string, where: string): string {
  if (key === '') throw new UsageError(`${where} is empty`);
  // Control characters (a second line, NUL, …) would be rejected in a header or split it; say so without echoing the key.
  if (/[\u0000-\u001f\u007f]/.test(key))
    throw new UsageError(`${where} must hold the key on one line, without control characters`);
  return key;
}

/** What reading a key file found: the key and, when the file is readable by others, a warning. */
export interface ApiKeyFromFile {
  key: string;
  warning: string | null;
}

/**
 * Reads `--api-key-file`: a regular file (a symbolic link to one is fine: Kubernetes mounts
 * secrets that way) of at most {@link MAX_API_KEY_FILE_BYTES}, UTF-8, trimmed, one line.
 * @throws InputFileError (unreadable, too large, not a regular file) or UsageError (empty, several lines).
 */
export function readApiKeyFile(file: string): ApiKeyFromFile {
  const { text, mode } = readInputFile(file, MAX_API_KEY_FILE_BYTES, 'API key');
  let key: string;
  try {
    key = checkKey(text.trim(), `--api-key-file ${file}`);
  } catch (error) {
    throw new InputFileError(file, (error as Error).message.replace(`--api-key-file ${file} `, ''));
  }
  const readers = [(mode & 0o070) !== 0 ? 'its group' : null, (mode & 0o007) !== 0 ? 'everyone' : null].filter(
    (who) => who !== null,
  );
  const warning =
    readers.length > 0
      ? `--api-key-file ${file} is accessible to ${readers.join(' and ')} (mode ${mode.toString(8).padStart(3, '0')}); chmod 600 it`
      : null;
  return { key, warning };
}

/**
 * The key from the environment variable `name`, trimmed.
 * @throws UsageError when it is unset, empty or not one line.
 */
export function readApiKeyEnv(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (value === undefined) throw new UsageError(`--api-key-env: environment variable ${name} is unset or empty`);
  const key = value.trim();
  if (key === '') throw new UsageError(`--api-key-env: environment variable ${name} is unset or empty`);
  return checkKey(key, `--api-key-env: environment variable ${name}`);
}

/**
 * The run's API key from whichever source the configuration names, with any warning to show.
 * @example const { key, warnings } = resolveApiKey({ apiKeyEnv: null, apiKeyFile: '/run/secrets/key' }, process.env);
 */
export function resolveApiKey(
  config: { apiKeyEnv: string | null; apiKeyFile: string | null },
  env: NodeJS.ProcessEnv,
): { key: string | null; warnings: string[] } {
  if (config.apiKeyFile !== null) {
    const { key, warning } = readApiKeyFile(config.apiKeyFile);
    return { key, warnings: warning === null ? [] : [warning] };
  }
  if (config.apiKeyEnv !== null) return { key: readApiKeyEnv(env, config.apiKeyEnv), warnings: [] };
  return { key: null, warnings: [] };
}
