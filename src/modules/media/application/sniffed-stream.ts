import { Readable } from 'node:stream';
import { MediaTooLargeError } from '../domain/media.errors';

/**
 * A stream whose first bytes were read ahead, to look at them before deciding where the
 * stream goes, and replayed in front of the rest. The replay counts bytes and fails with
 * MediaTooLargeError as soon as more than `maxBytes` went through, so the whole file is never
 * held anywhere: at most the head and whatever chunk is in flight.
 */
export interface SniffedStream {
  /** At least `headBytes` bytes from the start (fewer only when the stream is shorter). */
  readonly head: Buffer;
  /** The whole content again, head first. */
  readonly body: Readable;
  /** Bytes that went out through `body` so far; the file's size once `body` ended. */
  readonly bytesRead: number;
  /** Why `body` failed when the cause lay in the content or its source, not in the consumer. */
  readonly failure: Error | undefined;
  /** Gives the source up (when the content is refused before `body` is used). */
  discard(): void;
}

export async function sniffStream(
  source: Readable,
  headBytes: number,
  maxBytes: number,
): Promise<SniffedStream> {
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const { head, sourceEnded } = await readHead(chunks, headBytes);
  const state: ReplayState = { bytesRead: 0, failure: undefined };
  const release = (): void => {
    chunks.return?.().catch(() => undefined);
  };
  const body = Readable.from(replay(chunks, head, sourceEnded, state, maxBytes), {
    objectMode: false,
    highWaterMark: 64 * 1024,
  });
  // Whatever stops the replay early (a failure here, the consumer giving up) gives the source
  // up too, so that it never waits for a reader that is gone.
  body.once('close', () => {
    if (!body.readableEnded) {
      release();
    }
  });
  return {
    head,
    body,
    get bytesRead() {
      return state.bytesRead;
    },
    get failure() {
      return state.failure;
    },
    discard: () => {
      body.destroy();
      release();
    },
  };
}

interface ReplayState {
  bytesRead: number;
  failure: Error | undefined;
}

async function readHead(
  chunks: AsyncIterator<Buffer>,
  headBytes: number,
): Promise<{ head: Buffer; sourceEnded: boolean }> {
  const headChunks: Buffer[] = [];
  let headLength = 0;
  while (headLength < headBytes) {
    const next = await chunks.next();
    if (next.done) {
      return { head: Buffer.concat(headChunks, headLength), sourceEnded: true };
    }
    headChunks.push(next.value);
    headLength += next.value.length;
  }
  return { head: Buffer.concat(headChunks, headLength), sourceEnded: false };
}

/** The head, then the rest of the source, counted in `state` against `maxBytes`. */
async function* replay(
  chunks: AsyncIterator<Buffer>,
  head: Buffer,
  sourceEnded: boolean,
  state: ReplayState,
  maxBytes: number,
): AsyncGenerator<Buffer> {
  const count = (chunk: Buffer): Buffer => {
    state.bytesRead += chunk.length;
    if (state.bytesRead > maxBytes) {
      state.failure = new MediaTooLargeError(maxBytes);
      throw state.failure;
    }
    return chunk;
  };
  if (head.length > 0) {
    yield count(head);
  }
  if (sourceEnded) {
    return;
  }
  for (;;) {
    let next: IteratorResult<Buffer>;
    try {
      next = await chunks.next();
    } catch (error) {
      state.failure ??= error instanceof Error ? error : new Error(String(error));
      throw error;
    }
    if (next.done) {
      return;
    }
    yield count(next.value);
  }
}
