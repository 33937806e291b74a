import busboy, { type Busboy, type FileInfo } from 'busboy';
import type { Request } from 'express';
import type { Readable } from 'node:stream';
import type { IncomingFile } from '../application/incoming-file';
import {
  MediaFileMissingError,
  MediaMalformedMultipartError,
  MediaNotMultipartError,
  MediaTooLargeError,
} from '../domain/media.errors';

export interface MultipartFileOptions<T> {
  /** The form field that carries the file. */
  field: string;
  maxFileBytes: number;
  /** Takes the file while the body is still arriving (sniffs it, streams it to storage). */
  accept(file: IncomingFile): Promise<T>;
  /** Undoes accept() when the request turns out broken after the file was taken. */
  undo(result: T): Promise<void>;
}

/** Room for boundaries, part headers and small fields around the file. */
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;
/**
 * After a refusal, the rest of the body is read and dropped so that the client, still sending,
 * reads the answer instead of a reset connection; past these bounds the connection is cut.
 */
const DISCARD_MAX_BYTES = 32 * 1024 * 1024;
const DISCARD_MAX_MS = 30_000;

/**
 * Reads a multipart/form-data request whose one file part streams straight into `accept`:
 * nothing is buffered beyond busboy's chunks and the head the service sniffs. Other file parts
 * are dropped, other fields ignored. Resolves once both the body was read to its end and
 * accept() finished; rejects with the first failure and drops the rest of the body.
 */
export function receiveMultipartFile<T>(
  request: Request,
  options: MultipartFileOptions<T>,
): Promise<T> {
  const parser = parserFor(request, options.maxFileBytes);
  if (parser instanceof Error) {
    discardBody(request);
    return Promise.reject(parser);
  }
  return new Promise<T>((resolve, reject) =>
    new FileReception(request, parser, options, resolve, reject).start(),
  );
}

/** The body's parser, or why the request is refused before a byte of it is read. */
function parserFor(request: Request, maxFileBytes: number): Busboy | Error {
  if (!request.is('multipart/form-data')) {
    return new MediaNotMultipartError();
  }
  const declaredLength = Number(request.headers['content-length']);
  if (declaredLength > maxFileBytes + MULTIPART_OVERHEAD_BYTES) {
    return new MediaTooLargeError(maxFileBytes);
  }
  try {
    return busboy({
      headers: request.headers,
      defParamCharset: 'utf8',
      // One byte past the limit, so that the service sees the file is too large.
      limits: {
        files: 1,
        fileSize: maxFileBytes + 1,
        fields: 20,
        fieldSize: 64 * 1024,
        parts: 40,
      },
    });
  } catch {
    return new MediaMalformedMultipartError();
  }
}

/** One request's body on its way through the parser, settled once. */
class FileReception<T> {
  private settled = false;
  private accepted: Promise<T> | undefined;
  private file: Readable | undefined;
  private readonly otherParts: string[] = [];

  constructor(
    private readonly request: Request,
    private readonly parser: Busboy,
    private readonly options: MultipartFileOptions<T>,
    private readonly resolve: (result: T) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  start(): void {
    this.parser.on('file', (name, stream, info) => this.onFile(name, stream, info));
    this.parser.on('field', (name) => this.otherParts.push(name));
    this.parser.on('error', () => this.fail(new MediaMalformedMultipartError()));
    this.parser.on('finish', () => this.onFinish());
    this.request.on('close', () => {
      if (!this.request.complete) {
        this.fail(new MediaMalformedMultipartError());
      }
    });
    this.request.pipe(this.parser);
  }

  private onFile(name: string, stream: Readable, info: FileInfo): void {
    if (this.settled || this.accepted || name !== this.options.field) {
      if (name !== this.options.field) {
        this.otherParts.push(name);
      }
      stream.resume();
      return;
    }
    this.file = stream;
    this.accepted = this.options.accept({
      filename: info.filename ?? '',
      declaredType: info.mimeType,
      stream,
    });
    this.accepted.catch((error: unknown) =>
      this.fail(error instanceof Error ? error : new Error(String(error))),
    );
  }

  private onFinish(): void {
    if (!this.accepted) {
      this.fail(new MediaFileMissingError(this.otherParts));
      return;
    }
    this.accepted.then(
      (result) => {
        if (!this.settled) {
          this.settled = true;
          this.resolve(result);
        }
      },
      () => undefined, // already reported through fail()
    );
  }

  private fail(error: Error): void {
    if (this.settled) {
      return;
    }
    this.settled = true;
    this.request.unpipe(this.parser);
    // Ends the file stream for whoever still reads it: the storage then aborts and cleans up.
    this.file?.destroy(new MediaMalformedMultipartError());
    discardBody(this.request);
    this.reject(error);
    this.accepted?.then((result) => this.options.undo(result)).catch(() => undefined);
  }
}

/** Reads and drops what is left of the body, within bounds (see DISCARD_MAX_*). */
function discardBody(request: Request): void {
  if (request.complete || request.destroyed) {
    return;
  }
  let dropped = 0;
  const cut = (): void => {
    clearTimeout(timer);
    request.off('data', onData);
    const response = request.res;
    // Cut only once the answer went out, so that the client can still read it.
    if (!response || response.writableFinished) {
      request.socket.destroy();
    } else {
      response.once('finish', () => request.socket.destroy());
    }
  };
  const onData = (chunk: Buffer): void => {
    dropped += chunk.length;
    if (dropped > DISCARD_MAX_BYTES) {
      cut();
    }
  };
  const timer = setTimeout(cut, DISCARD_MAX_MS);
  timer.unref();
  request.on('data', onData);
  request.once('end', () => clearTimeout(timer));
  request.once('close', () => clearTimeout(timer));
  request.resume();
}
