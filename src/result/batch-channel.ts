/**
 * A hand-over of one item at a time between a producer and a consumer that pulls (the records
 * writer and Parquet's encoder): `put` waits until the previous item was taken, so the producer
 * never runs more than one row group ahead and memory stays bounded. `null` ends the channel.
 */
export class BatchChannel<T> {
  private item: { value: T | null } | null = null;
  private failure: { error: unknown } | null = null;
  private wakeTaker: (() => void) | null = null;
  private wakePutter: (() => void) | null = null;

  /** Hand `value` over (null: the end), once the previous item has been taken. */
  async put(value: T | null): Promise<void> {
    while (this.item !== null && this.failure === null) await new Promise<void>((r) => (this.wakePutter = r));
    if (this.failure !== null) throw this.failure.error;
    this.item = { value };
    this.wake('taker');
  }

  /** The next item (null: the end), waiting for it. */
  async take(): Promise<T | null> {
    while (this.item === null && this.failure === null) await new Promise<void>((r) => (this.wakeTaker = r));
    if (this.item === null) throw (this.failure as { error: unknown }).error;
    const { value } = this.item;
    this.item = null;
    this.wake('putter');
    return value;
  }

  /** End the channel with `error`: both sides' waits end and throw it. */
  fail(error: unknown): void {
    this.failure ??= { error };
    this.wake('taker');
    this.wake('putter');
  }

  private wake(which: 'taker' | 'putter'): void {
    const wake = which === 'taker' ? this.wakeTaker : this.wakePutter;
    if (which === 'taker') this.wakeTaker = null;
    else this.wakePutter = null;
    wake?.();
  }
}
