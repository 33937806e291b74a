import { AsyncQueue } from './async-queue';

async function readAll<T>(queue: AsyncQueue<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of queue) {
    items.push(item);
  }
  return items;
}

describe('AsyncQueue', () => {
  it('hands over items pushed before and while the reader waits, in order, until end()', async () => {
    const queue = new AsyncQueue<number>();
    queue.push(1);
    const reading = readAll(queue);
    await new Promise((resolve) => setImmediate(resolve));
    queue.push(2);
    queue.push(3);
    queue.end();
    await expect(reading).resolves.toEqual([1, 2, 3]);
  });

  it('throws what fail() was given to a waiting reader', async () => {
    const queue = new AsyncQueue<number>();
    const reading = readAll(queue);
    await new Promise((resolve) => setImmediate(resolve));
    queue.fail(new Error('thread died'));
    await expect(reading).rejects.toThrow('thread died');
  });
});
