/**
 * Reading a saved plan (`servebench plan --output`): `run --plan` executes it, `k8s --plan` puts
 * its text in a ConfigMap. Bounded, named in every error, checked against the plan schema. A
 * gzipped plan (`plan.json.gz`, as `servebench k8s` stores a plan over a ConfigMap's 1 MiB) is
 * recognised by its magic bytes and read the same way.
 */
import { gunzipSync } from 'node:zlib';
import { parsePlan, type RunPlan } from '../plan/run-plan.js';
import { InputFileError } from '../util/errors.js';
import { decodeUtf8, jsonProblem, readInputBytes } from '../util/read-file.js';

/** Largest plan file read (a plan of a million requests is a few tens of megabytes). */
const MAX_PLAN_BYTES = 512 * 1024 * 1024;

/** The plan in `file` and the file's text as read. @throws InputFileError naming the file and the problem. */
export function readPlanFile(file: string): { plan: RunPlan; text: string } {
  const text = decodeUtf8(planBytes(file), file);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputFileError(file, jsonProblem(text, error));
  }
  return { plan: parsePlan(value, file), text };
}

/** The plan file's bytes, gunzipped when it is gzip (magic 1f 8b), bounded either way. */
function planBytes(file: string): Buffer {
  const { bytes } = readInputBytes(file, MAX_PLAN_BYTES, 'plan');
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_PLAN_BYTES });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputFileError(
      file,
      code === 'ERR_BUFFER_TOO_LARGE'
        ? `unzips to more than the ${MAX_PLAN_BYTES / (1024 * 1024)} MiB a plan may hold`
        : `is gzip but does not unzip (${code ?? (error as Error).message})`,
    );
  }
}
