/**
 * A journal read back, of either era: JSON lines (written before record files; parseJournal,
 * unchanged) or frames (record/file/). Told by the first bytes: the magic, or anything else as text.
 */
import { hasMagic } from './file/frame.js';
import { splitRecordBytes } from './file/split.js';
import { decodeBlock } from './store/block-codec.js';
import { RecordStore } from './store/record-store.js';
import type { RequestResult } from './types.js';
import { JOURNAL_SCHEMA, journalEndProblem, parseJournal, type JournalContents, type JournalEnd } from './journal.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The journal in `bytes` with its records as a store too (frames only: an NDJSON journal's are `results`). */
export function readJournalBytes(bytes: Uint8Array): JournalContents & { store: RecordStore | null } {
  if (!hasMagic(bytes)) {
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      throw new Error('neither a journal nor UTF-8 text');
    }
    return { ...parseJournal(text), store: null };
  }
  const split = splitRecordBytes(bytes, true);
  const header = split.header;
  if (header['schema'] !== JOURNAL_SCHEMA) throw new Error(`frame 1: not a ${JOURNAL_SCHEMA} header`);
  const run = header['run'];
  if (typeof run !== 'object' || run === null || Array.isArray(run))
    throw new Error('frame 1: header.run must be an object');
  let end: JournalEnd | null = null;
  if (split.end !== null) {
    const problem = journalEndProblem(split.end);
    if (problem !== null) throw new Error(`the end frame: ${problem}`);
    end = split.end as unknown as JournalEnd;
  }
  const store = new RecordStore();
  for (const { bytes: block, offset } of split.blocks) {
    try {
      store.take(decodeBlock(block));
    } catch (error) {
      throw new Error(`byte ${offset}: ${(error as Error).message}`);
    }
  }
  let results: RequestResult[] | null = null;
  return {
    run,
    // Objects only for a reader that asks (rebuild assembles from the store's columns).
    get results(): RequestResult[] {
      return (results ??= [...store]);
    },
    end,
    truncatedLine: split.torn?.number ?? null,
    era: 'frames',
    truncatedOffset: split.torn?.offset ?? null,
    store,
  };
}
