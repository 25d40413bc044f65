/**
 * The one JSON body of a `/v1/embeddings` response (not streamed). Nothing of it is usable before
 * all of it has arrived, so its first output, first visible token and end are one instant: the
 * arrival of its last byte (docs/endpoints.md). Success needs a `data` array with one embedding
 * per input sent, each a non-empty array of numbers or a base64 string (`encoding_format`).
 */
import { isDict, pythonTypeName } from './python.js';
import { CONTINUE, failed, parseEventJson, serverErrorMessage, type ChunkState, type ChunkVerdict } from './chunk.js';

/** Reads the whole body `text` that ended at `atNs`; `inputs` is how many inputs the request sent. */
export function applyEmbeddingsBody(state: ChunkState, text: string, atNs: bigint, inputs: number): ChunkVerdict {
  state.dataEvents++;
  const trimmed = text.trim();
  const parsed = parseEventJson(state, trimmed, 'the embeddings body');
  if ('failure' in parsed) return parsed.failure;
  const body = parsed.value;
  if (!isDict(body))
    return failed('AttributeError', `'${pythonTypeName(body)}' object has no attribute 'get'`, trimmed);
  if (body['error'] !== undefined && body['error'] !== null && body['data'] === undefined)
    return failed('StreamError', serverErrorMessage(body['error'], trimmed), trimmed);
  if (typeof body['id'] === 'string' && body['id'] !== '') state.responseId = body['id'];
  if (isDict(body['usage'])) state.usage = body['usage'];
  const data = body['data'];
  if (!Array.isArray(data))
    return failed('TypeError', `embeddings body: data is ${pythonTypeName(data)}, not list`, trimmed);
  if (data.length !== inputs)
    return failed('ValueError', `embeddings body has ${data.length} embeddings for ${inputs} inputs`, trimmed);
  for (const [i, item] of data.entries()) {
    const vector = isDict(item) ? item['embedding'] : undefined;
    const ok =
      (Array.isArray(vector) &&
        vector.length > 0 &&
        vector.every((x) => typeof x === 'number' && Number.isFinite(x))) ||
      (typeof vector === 'string' && vector !== '');
    if (!ok) return failed('ValueError', `embeddings body: data[${i}].embedding is not a non-empty vector`, trimmed);
  }
  state.firstOutputNs = atNs;
  state.firstContentNs = atNs;
  return CONTINUE;
}
