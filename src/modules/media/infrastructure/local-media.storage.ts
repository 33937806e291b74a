import { Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Clock } from '../../../common/time/clock';
import {
  isLocalFileName,
  LOCAL_MEDIA_BUCKET,
  localFileName,
  localMediaDirectory,
} from '../domain/media-object-name';
import {
  MediaStorage,
  type MediaObjectInput,
  type StoredMediaObject,
} from '../domain/media-storage';

const PARTIAL_SUFFIX = '.part';
/** Partial files older than this were left by a crash (an upload never takes a day). */
const STALE_PARTIAL_MS = 24 * 60 * 60 * 1000;

/**
 * DATA_DIR/media, served by GET /media/files/{filename}. A file is written under a hidden
 * partial name and renamed into place once complete, so a half-written upload is never served
 * and a failed one leaves nothing behind.
 */
export class LocalMediaStorage extends MediaStorage implements OnApplicationBootstrap {
  private readonly logger = new Logger(LocalMediaStorage.name);
  private readonly directory: string;

  constructor(
    dataDir: string,
    private readonly publicBaseUrl: string,
    private readonly clock: Clock,
  ) {
    super();
    this.directory = localMediaDirectory(dataDir);
  }

  onApplicationBootstrap(): void {
    this.sweepStalePartials(this.clock.now()).catch((error: unknown) =>
      this.logger.warn({ err: error }, 'Could not sweep partial uploads'),
    );
  }

  async put(input: MediaObjectInput): Promise<StoredMediaObject> {
    const objectName = localFileName({ ...input, uuid: randomUUID() });
    await mkdir(this.directory, { recursive: true });
    const partial = join(this.directory, `.${objectName}${PARTIAL_SUFFIX}`);
    try {
      await pipeline(input.body, createWriteStream(partial, { flags: 'wx', mode: 0o644 }));
      await rename(partial, join(this.directory, objectName));
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return {
      bucket: LOCAL_MEDIA_BUCKET,
      objectName,
      url: `${this.publicBaseUrl}/media/files/${objectName}`,
    };
  }

  async remove(objectName: string): Promise<void> {
    if (isLocalFileName(objectName)) {
      await rm(join(this.directory, objectName), { force: true });
    }
  }

  /** Removes partial files a crash left behind; other instances' uploads in progress are younger. */
  async sweepStalePartials(now: Date): Promise<void> {
    const names = await readdir(this.directory).catch(() => [] as string[]);
    for (const name of names) {
      if (!name.startsWith('.') || !name.endsWith(PARTIAL_SUFFIX)) {
        continue;
      }
      const path = join(this.directory, name);
      const info = await stat(path).catch(() => null);
      if (info && now.getTime() - info.mtimeMs > STALE_PARTIAL_MS) {
        await rm(path, { force: true });
        this.logger.warn({ file: name }, 'Removed a partial upload left by an earlier run');
      }
    }
  }
}
