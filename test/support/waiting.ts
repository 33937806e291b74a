/**
 * Waiting in tests. A test waits for the thing itself with `until`; `sleep` is only for a span
 * of time that is itself what the test is about (a pause between messages, a lease running
 * out, nothing happening for a while), and every call says so in a comment.
 */
export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `read` every 50 ms until `done` holds and answers the value that made it hold; throws
 * with the last value after `ms` (`what` names the condition in that error).
 */
export async function until<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  ms = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    // The polling interval; the deadline bounds the wait.
    await sleep(50);
    value = await read();
  }
  if (!done(value)) {
    throw new Error(`${what} not reached in ${ms} ms; last: ${JSON.stringify(value)}`);
  }
  return value;
}
