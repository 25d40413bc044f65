/**
 * The scraper's thread (loaded by scraper.ts as a worker thread). It scrapes once before the run
 * (the baseline, reported at once), then every interval on a fixed grid, one scrape at a time (a
 * slow one is cut off at its deadline and the ticks it overran are skipped), and on `stop` once
 * more after the run. It keeps every scrape itself and sends the whole log only at the end, so
 * the main thread, which stamps the chunks, receives nothing while the run lasts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ServerEngine } from '../result/server-metrics-names.js';
import { headerSecrets } from './endpoint.js';
import { FailureNotes } from './failure-notes.js';
import { scrapeAgent } from './fetch-text.js';
import type { FromScraper, ScraperSettings, ToScraper } from './protocol.js';
import { scrapeOnce } from './scrape-once.js';
import type { TimedScrape } from './scrape-log.js';
import { lowerThisThread } from './thread-nice.js';

if (parentPort === null) throw new Error('scrape-worker.js runs as a worker thread of servebench run');
const port = parentPort;
const settings = workerData as ScraperSettings;
if (settings.lowerPriority) lowerThisThread();
const post = (message: FromScraper): void => port.postMessage(message);

const agent = scrapeAgent();
const stopping = new AbortController();
port.on('message', (message: ToScraper) => {
  if (message.type === 'stop') stopping.abort();
});
const notes = new FailureNotes(headerSecrets(settings.headers));
const scrapes: TimedScrape[] = [];
let attempted = 0;
let failed = 0;
let engine: ServerEngine | null = null;

/** One scrape of `phase`: null, or the failure's line. A scrape the end of the run cut short is not counted at all. */
async function take(phase: TimedScrape['phase'], timeoutMs: number, signal: AbortSignal): Promise<string | null> {
  const outcome = await scrapeOnce({ ...settings, agent, timeoutMs, engine, signal });
  if (!outcome.ok && outcome.kind === 'aborted') return null;
  attempted++;
  if (!outcome.ok) {
    failed++;
    notes.add(outcome.kind, outcome.problem, phase);
    return outcome.problem;
  }
  engine ??= outcome.engine;
  scrapes.push({ ...outcome.scrape, phase });
  if (outcome.problems.length > 0)
    notes.once('problems', `some lines of the exposition could not be read and were skipped (${outcome.problems[0]})`);
  return null;
}

/** Resolves after `ms` or at `stop`, whichever is first. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (stopping.signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      stopping.signal.removeEventListener('abort', done);
      resolve();
    }
    stopping.signal.addEventListener('abort', done, { once: true });
  });
}

function sendLog(): void {
  post({
    type: 'log',
    log: {
      url: settings.recordedUrl,
      source: settings.source,
      intervalS: settings.intervalS,
      engine,
      attempted,
      failed,
      notes: notes.lines(attempted),
      scrapes,
    },
  });
}

async function main(): Promise<void> {
  const intervalNs = BigInt(Math.round(settings.intervalS * 1e9));
  const gridNs = process.hrtime.bigint();
  // The baseline is not cut short by `stop`: it is what every counter's delta starts from.
  const baseline = await take('before', settings.boundaryTimeoutMs, new AbortController().signal);
  post(baseline === null ? { type: 'baseline', ok: true } : { type: 'baseline', ok: false, problem: baseline });
  // auto found no exposition: the caller drops the scrape, and nothing more is sent.
  if (baseline !== null && settings.source === 'auto') return sendLog();
  while (!stopping.signal.aborted) {
    const now = process.hrtime.bigint();
    const next = gridNs + ((now - gridNs) / intervalNs + 1n) * intervalNs;
    await pause(Number(next - now) / 1e6);
    if (stopping.signal.aborted) break;
    await take('during', settings.timeoutMs, stopping.signal);
  }
  await take('after', settings.boundaryTimeoutMs, new AbortController().signal);
  sendLog();
}

main()
  .catch((error: unknown) => {
    notes.once('thread', `the scraper failed: ${error instanceof Error ? error.name : 'error'}`);
    sendLog();
  })
  .finally(() => {
    void agent.close().finally(() => port.close());
  });
