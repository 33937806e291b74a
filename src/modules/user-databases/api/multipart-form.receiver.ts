import { bodyProblem, UNSAFE_TEXT_MESSAGE } from '../../../common/http/text-hygiene';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import busboy from 'busboy';
import type { Request } from 'express';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InvalidInputError, ValidationFailedError } from '../../../common/errors/domain-error';
import { AppConfig } from '../../../config/app-config.service';
import { MAX_UPLOAD_BYTES, UploadedForm } from '../application/uploaded-file';
import { UploadTooLargeError } from '../domain/user-database.errors';

/** Text parts (the JSON config) are small; a megabyte is generous. */
const MAX_TEXT_PART_BYTES = 1024 * 1024;
/** Spooled files older than this were left by a crash (an import never takes this long). */
const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

interface Collected {
  form: { file: UploadedForm['file']; fields: Map<string, string> };
  pending: Array<Promise<void>>;
  errors: Array<[string, string]>;
  tooLarge: boolean;
}

/**
 * Streams a multipart/form-data request with busboy: the `file` part goes straight to a
 * temporary file under DATA_DIR/tmp/uploads (never into memory), text parts are collected.
 * The whole request is read even past the size limit, so that the 413 reaches the client
 * instead of a reset connection.
 */
@Injectable()
export class MultipartFormReceiver implements OnModuleInit {
  private readonly logger = new Logger(MultipartFormReceiver.name);
  private readonly directory: string;

  constructor(config: AppConfig) {
    this.directory = join(config.dataDir, 'tmp', 'uploads');
  }

  /** Files left by a process that was killed mid-import. */
  async onModuleInit(): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    const now = Date.now();
    for (const name of await readdir(this.directory)) {
      const path = join(this.directory, name);
      const info = await stat(path).catch(() => null);
      if (info && now - info.mtimeMs > STALE_AFTER_MS) {
        await rm(path, { force: true });
        this.logger.warn({ path }, 'Removed a stale upload');
      }
    }
  }

  /** Runs `work` on the received form; the spooled file is removed afterwards, whatever happens. */
  async withForm<T>(
    request: Request,
    allowedParts: readonly string[],
    work: (form: UploadedForm) => Promise<T>,
  ): Promise<T> {
    const form = await this.receive(request, allowedParts);
    try {
      return await work(form);
    } finally {
      if (form.file) {
        await rm(form.file.path, { force: true });
      }
    }
  }

  private async receive(request: Request, allowedParts: readonly string[]): Promise<UploadedForm> {
    if (!/^multipart\/form-data/i.test(request.headers['content-type'] ?? '')) {
      throw new InvalidInputError(
        'UPLOAD.NOT_MULTIPART',
        'Envie o arquivo como multipart/form-data, no campo "file"',
      );
    }
    await mkdir(this.directory, { recursive: true });
    const collected: Collected = {
      form: { file: null, fields: new Map() },
      pending: [],
      errors: [],
      tooLarge: false,
    };
    try {
      await this.parse(request, allowedParts, collected);
      await Promise.all(collected.pending);
    } catch (error) {
      await Promise.allSettled(collected.pending);
      await this.discard(collected.form.file);
      throw error instanceof InvalidInputError
        ? error
        : new InvalidInputError('UPLOAD.MALFORMED', 'Corpo multipart/form-data malformado');
    }
    if (collected.tooLarge || collected.errors.length > 0) {
      await this.discard(collected.form.file);
      if (collected.tooLarge) {
        throw new UploadTooLargeError(MAX_UPLOAD_BYTES);
      }
      throw new ValidationFailedError(collected.errors);
    }
    return collected.form;
  }

  private parse(
    request: Request,
    allowedParts: readonly string[],
    collected: Collected,
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      const parser = busboy({
        headers: request.headers,
        limits: {
          fileSize: MAX_UPLOAD_BYTES,
          files: allowedParts.length,
          fields: allowedParts.length,
          parts: allowedParts.length * 2,
          fieldSize: MAX_TEXT_PART_BYTES,
        },
      });
      parser.on('file', (name, stream, info) => {
        if (name === 'file' && allowedParts.includes('file') && !collected.form.file) {
          collected.pending.push(this.spool(stream, info.filename, collected));
        } else if (name !== 'file' && allowedParts.includes(name)) {
          collected.pending.push(collectText(stream, name, collected));
        } else {
          collected.errors.push([
            name,
            name === 'file' ? 'envie um único arquivo' : 'campo desconhecido',
          ]);
          stream.resume();
        }
      });
      parser.on('field', (name, value, info) => {
        if (!allowedParts.includes(name) || name === 'file') {
          collected.errors.push([
            name,
            name === 'file' ? 'deve ser um arquivo' : 'campo desconhecido',
          ]);
        } else if (info.valueTruncated) {
          collected.errors.push([name, 'grande demais']);
        } else if (bodyProblem(value)) {
          collected.errors.push([name, UNSAFE_TEXT_MESSAGE]);
        } else {
          collected.form.fields.set(name, value);
        }
      });
      for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) {
        parser.on(limit, () => collected.errors.push(['form', 'partes demais no formulário']));
      }
      parser.on('close', () => resolve());
      parser.on('error', reject);
      request.on('aborted', () => reject(new Error('request aborted')));
      request.pipe(parser);
    });
  }

  private async spool(
    stream: Readable,
    filename: string | undefined,
    collected: Collected,
  ): Promise<void> {
    const path = join(this.directory, `${randomUUID()}.upload`);
    const file = { path, originalName: filename ?? 'arquivo', size: 0 };
    collected.form.file = file;
    stream.on('limit', () => {
      collected.tooLarge = true;
    });
    const output = createWriteStream(path);
    await pipeline(stream, output);
    file.size = output.bytesWritten;
  }

  private async discard(file: UploadedForm['file']): Promise<void> {
    if (file) {
      await rm(file.path, { force: true });
    }
  }
}

/** A text part sent as a file part (curl -F "config=@config.json;type=application/json"). */
async function collectText(stream: Readable, name: string, collected: Collected): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_TEXT_PART_BYTES) {
      chunks.push(chunk);
    }
  }
  if (size > MAX_TEXT_PART_BYTES) {
    collected.errors.push([name, 'grande demais']);
    return;
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (bodyProblem(text)) {
    collected.errors.push([name, UNSAFE_TEXT_MESSAGE]);
    return;
  }
  collected.form.fields.set(name, text);
}
