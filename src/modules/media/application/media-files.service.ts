import { Injectable } from '@nestjs/common';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AppConfig } from '../../../config/app-config.service';
import { acceptedKindFor, extensionOf } from '../domain/media-kind';
import { isLocalFileName, localMediaDirectory } from '../domain/media-object-name';
import { MediaFileNotFoundError } from '../domain/media.errors';

/** A locally stored file, as GET /media/files/{filename} serves it. */
export interface LocalMediaFile {
  directory: string;
  name: string;
  contentType: string;
}

/**
 * Finds the local files GET /media/files/{filename} may serve. Only names of the exact stored
 * form are looked up (anything else cannot exist, and answers 404), so the path never leaves
 * DATA_DIR/media. Serves files kept locally in S3 mode too: uploads made before S3 was set up.
 */
@Injectable()
export class MediaFilesService {
  private readonly directory: string;
  private readonly localUrlPrefix: string;

  constructor(config: AppConfig) {
    this.directory = localMediaDirectory(config.dataDir);
    this.localUrlPrefix = `${config.publicBaseUrl}/media/files/`;
  }

  /**
   * The local file behind one of our own media URLs (PUBLIC_BASE_URL/media/files/{name}), or
   * null for any other URL. A gateway often cannot reach this service, so such media are sent
   * as their bytes instead of their URL.
   */
  localFileOf(url: string): LocalMediaFile | null {
    if (!url.startsWith(this.localUrlPrefix)) {
      return null;
    }
    try {
      return this.locate(url.slice(this.localUrlPrefix.length));
    } catch {
      return null;
    }
  }

  /** Whether the local file exists (campaign creation refuses a URL to a file we do not have). */
  async exists(file: LocalMediaFile): Promise<boolean> {
    const info = await stat(join(file.directory, file.name)).catch(() => null);
    return info?.isFile() ?? false;
  }

  read(file: LocalMediaFile): Promise<Buffer> {
    return readFile(join(file.directory, file.name));
  }

  locate(filename: string): LocalMediaFile {
    const kind = isLocalFileName(filename) ? acceptedKindFor(extensionOf(filename)) : null;
    if (!kind) {
      throw new MediaFileNotFoundError();
    }
    return { directory: this.directory, name: filename, contentType: kind.mimeType };
  }
}
