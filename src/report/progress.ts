/**
 * Live progress of a run. On a terminal: one line redrawn a few times a second with completed,
 * failed and in-flight requests, elapsed and remaining time, the rolling TTFT median (last 50
 * completed requests) and the rolling output rate (tokens of requests completed in the last 5 s,
 * divided by 5 s). Elsewhere: a plain line at every 10% of the planned requests (or every 10 s
 * for a run bounded by time). The figures here are for watching a run, not for reporting: the
 * result file is the measurement.
 */
import type { RequestResult } from '../record/types.js';

const ROLLING_TTFT_COUNT = 50;
const ROLLING_RATE_WINDOW_MS = 5000;

export interface ProgressOptions {
  write: (text: string) => void;
  isTTY: boolean;
  /** Planned requests (a ceiling when the run is bounded by time). */
  total: number;
  durationS: number | null;
  /** Milliseconds since the run started. */
  nowMs: () => number;
}

/** Collects run events and renders progress lines. */
export class Progress {
  private sent = 0;
  private done = 0;
  private failed = 0;
  private readonly ttfts: number[] = [];
  private readonly completions: { atMs: number; tokens: number }[] = [];
  private lastPlainStep = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: ProgressOptions) {}

  /** Starts redrawing (terminal only). */
  start(): void {
    if (this.options.isTTY) this.timer = setInterval(() => this.options.write(`\r\u001b[2K${this.line()}`), 250);
    this.timer?.unref();
  }

  onSent(): void {
    this.sent++;
  }

  onResult(result: RequestResult): void {
    this.done++;
    if (!result.ok) this.failed++;
    if (result.ok && result.ttftS !== null) {
      this.ttfts.push(result.ttftS * 1000);
      if (this.ttfts.length > ROLLING_TTFT_COUNT) this.ttfts.shift();
    }
    const tokens = result.usage?.['completion_tokens'];
    this.completions.push({
      atMs: this.options.nowMs(),
      tokens: typeof tokens === 'number' ? tokens : result.contentChunks,
    });
    if (!this.options.isTTY) this.plain();
  }

  /** Stops redrawing and ends the line. */
  finish(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (this.options.isTTY) this.options.write(`\r\u001b[2K${this.line()}\n`);
  }

  /** The current progress line. */
  line(): string {
    const now = this.options.nowMs();
    const elapsed = now / 1000;
    const recent = this.completions.filter((c) => c.atMs >= now - ROLLING_RATE_WINDOW_MS);
    while (this.completions.length > 0 && this.completions[0]!.atMs < now - ROLLING_RATE_WINDOW_MS)
      this.completions.shift();
    const rate =
      recent.reduce((sum, c) => sum + c.tokens, 0) / (Math.min(ROLLING_RATE_WINDOW_MS, Math.max(now, 1)) / 1000);
    const sorted = [...this.ttfts].sort((a, b) => a - b);
    const ttft = sorted.length === 0 ? '-' : `${sorted[Math.max(0, Math.ceil(sorted.length / 2) - 1)]!.toFixed(0)} ms`;
    const total = this.options.durationS !== null && this.options.total >= 1_000_000 ? '' : `/${this.options.total}`;
    return `  ${this.done}${total} done (${this.failed} failed), ${this.sent - this.done} in flight | ${formatSeconds(elapsed)} elapsed, ${this.remaining(elapsed)} | TTFT p50 ${ttft} | ${rate.toFixed(0)} tok/s`;
  }

  private remaining(elapsed: number): string {
    if (this.options.durationS !== null) return `${formatSeconds(Math.max(0, this.options.durationS - elapsed))} left`;
    if (this.done === 0) return 'remaining unknown';
    return `~${formatSeconds((elapsed / this.done) * (this.options.total - this.done))} left`;
  }

  private plain(): void {
    const byCount = Math.floor((this.done * 10) / Math.max(1, this.options.total));
    const byTime = Math.floor(this.options.nowMs() / 10000);
    const step = this.options.durationS !== null ? byTime : byCount;
    if (step > this.lastPlainStep || this.done === this.options.total) {
      this.lastPlainStep = step;
      this.options.write(`${this.line()}\n`);
    }
  }
}

function formatSeconds(s: number): string {
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m}m${String(Math.round(s - m * 60)).padStart(2, '0')}s`;
}
