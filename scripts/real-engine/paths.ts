/** Where the real-engine cache lives (outside the repository) and what is in it. */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** `$SERVEBENCH_REAL_DIR`, else `$HOME/.cache/servebench/real-engine` (same rule as setup.sh). */
export function realDir(): string {
  const fromEnv = process.env['SERVEBENCH_REAL_DIR'];
  return resolve(
    fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), '.cache', 'servebench', 'real-engine'),
  );
}

/** The llama.cpp checkout made by setup.sh. */
export function llamaSourceDir(): string {
  return join(realDir(), 'llama.cpp');
}

/** `$SERVEBENCH_LLAMA_SERVER`, else the binary setup.sh builds. */
export function llamaServerPath(): string {
  const fromEnv = process.env['SERVEBENCH_LLAMA_SERVER'];
  return fromEnv !== undefined && fromEnv !== ''
    ? resolve(fromEnv)
    : join(llamaSourceDir(), 'build', 'bin', 'llama-server');
}

/** A vocab-only GGUF shipped in the llama.cpp source, e.g. `phi-3` → models/ggml-vocab-phi-3.gguf. */
export function vocabPath(name = 'phi-3'): string {
  return join(llamaSourceDir(), 'models', `ggml-vocab-${name}.gguf`);
}

/** Generated models. */
export function modelsDir(): string {
  return join(realDir(), 'models');
}

/** Server logs of test runs. */
export function logsDir(): string {
  return join(realDir(), 'logs');
}

/** Throws a one-line explanation when the engine has not been built. */
export function requireEngine(): string {
  const bin = llamaServerPath();
  if (!existsSync(bin))
    throw new Error(
      `llama-server not found at ${bin}: run scripts/real-engine/setup.sh (npm run real-engine:setup) first`,
    );
  return bin;
}
