/**
 * Items handed over from callbacks to one `for await` reader, in order: the reader waits while
 * the queue is empty and stops at end(), or throws what fail() was given.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private ended = false;
  private failure: { error: Error } | null = null;
  private wakeReader: (() => void) | null = null;

  push(item: T): void {
    this.items.push(item);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  fail(error: Error): void {
    this.failure ??= { error };
    this.wake();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.failure) {
        throw this.failure.error;
      }
      const item = this.items.shift();
      if (item !== undefined) {
        yield item;
      } else if (this.ended) {
        return;
      } else {
        await new Promise<void>((resolve) => (this.wakeReader = resolve));
      }
    }
  }

  private wake(): void {
    const wake = this.wakeReader;
    this.wakeReader = null;
    wake?.();
  }
}
