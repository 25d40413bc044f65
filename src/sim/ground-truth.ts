/**
 * What the simulator really did for each request, on its own monotonic clock, so tests can
 * compare what a client measured with what the server wrote and when.
 * All times are integer nanoseconds since the simulator started. `*Ns` fields are actual times
 * (taken just before the bytes are handed to the socket, which writes them at once); `model.*Ns` are the times the queueing
 * model scheduled — their difference is the simulator's own timer lateness.
 */

/** Model-scheduled times of one request (engine time, ns since start). */
export interface ModelTimes {
  /** The engine's arrival reading (the model's time zero for this request). */
  arrivalNs: number;
  admittedNs: number | null;
  firstOutputNs: number | null;
  firstContentNs: number | null;
  lastChunkNs: number | null;
}

/** One request's ground truth, keyed by its response id. */
export interface GroundTruth {
  id: string;
  /** Arrival index (seeds its lengths and text). */
  index: number;
  endpoint: 'chat' | 'completion' | 'responses' | 'messages' | 'embeddings';
  stream: boolean;
  status: 'waiting' | 'running' | 'done' | 'cancelled';
  promptTokens: number;
  cachedTokens: number | null;
  completionTokens: number;
  reasoningTokens: number;
  /**
   * The engine's finish reason (`stop`, `length`): a tool call that completed is `stop` here, as
   * in vLLM's counters, whatever the API called it (`tool_calls`, `tool_use`).
   */
  finishReason: string | null;
  /** 1 when the response is a tool call instead of text (then its content tokens are the arguments), else 0. */
  toolCalls: number;
  /** UTF-8 bytes of the tool call's arguments written so far (0 without a tool call). */
  toolArgumentBytes: number;
  /** Request headers parsed. */
  receivedNs: number;
  /** Body parsed and queued in the engine. */
  submittedNs: number;
  /** Admission callback ran (slot granted). */
  admittedNs: number | null;
  /** First reasoning or content bytes written (non-stream: the response write). */
  firstOutputNs: number | null;
  /**
   * First answer (non-reasoning) tokens written. With `reasoning_field: 'think-tags'` the reasoning
   * also travels in `content`; this is still the chunk carrying the first answer token (the one
   * that opens with `</think>`), not the first content bytes.
   */
  firstContentNs: number | null;
  /** Last token chunk written. */
  lastChunkNs: number | null;
  /** Client went away before the end. */
  cancelledNs: number | null;
  model: ModelTimes;
}

/** A bounded map of ground-truth records; the oldest are dropped beyond `limit`. */
/** The request was admitted by the engine at model time `event.atNs`, seen at wall time `nowNs`. */
export function recordAdmitted(t: GroundTruth, event: { atNs: number; cachedTokens: number }, nowNs: number): void {
  t.status = 'running';
  t.admittedNs = nowNs;
  t.model.admittedNs = event.atNs;
  t.cachedTokens = event.cachedTokens;
}

/** The client went away before the end, seen at wall time `nowNs`. */
export function recordCancelled(t: GroundTruth | undefined, nowNs: number): void {
  if (t === undefined) return;
  t.status = 'cancelled';
  t.cancelledNs = nowNs;
}

export class GroundTruthStore {
  private readonly records = new Map<string, GroundTruth>();

  constructor(private readonly limit: number) {}

  /** Keep `record` (the caller mutates it in place as the request progresses). */
  add(record: GroundTruth): void {
    if (this.limit === 0) return;
    this.records.set(record.id, record);
    while (this.records.size > this.limit) {
      const oldest = this.records.keys().next();
      if (oldest.done === true) break;
      this.records.delete(oldest.value);
    }
  }

  /** A snapshot of one record, or undefined. */
  get(id: string): GroundTruth | undefined {
    const r = this.records.get(id);
    return r === undefined ? undefined : structuredClone(r);
  }

  /** Snapshots of every kept record, in arrival order. */
  all(): GroundTruth[] {
    return [...this.records.values()].map((r) => structuredClone(r));
  }
}
