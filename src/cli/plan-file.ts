/**
 * Reading a saved plan (`servebench plan --output`): `run --plan` executes it, `k8s --plan` puts
 * its text in a ConfigMap. Bounded, named in every error, checked against the plan schema.
 */
import { parsePlan, type RunPlan } from '../plan/run-plan.js';
import { InputFileError } from '../util/errors.js';
import { jsonProblem, readInputFile } from '../util/read-file.js';

/** Largest plan file read (a plan of a million requests is a few tens of megabytes). */
const MAX_PLAN_BYTES = 512 * 1024 * 1024;

/** The plan in `file` and the file's text as read. @throws InputFileError naming the file and the problem. */
export function readPlanFile(file: string): { plan: RunPlan; text: string } {
  const { text } = readInputFile(file, MAX_PLAN_BYTES, 'plan');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputFileError(file, jsonProblem(text, error));
  }
  return { plan: parsePlan(value, file), text };
}
