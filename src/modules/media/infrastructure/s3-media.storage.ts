import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { S3Settings } from '../../../config/app-config.service';
import { objectStorageName } from '../domain/media-object-name';
import {
  MediaStorage,
  type MediaObjectInput,
  type StoredMediaObject,
} from '../domain/media-storage';

/** Names are never reused, so the content behind a URL never changes: cache it for a year. */
export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** S3's minimum part size; with two parts in flight an upload holds about 15 MB, whatever its size. */
const PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

/**
 * Any S3-compatible object store (AWS S3, MinIO, R2, Spaces…). The body is streamed with
 * lib-storage's Upload: one PUT for a file under 5 MB, a multipart upload otherwise, aborted
 * (its parts deleted) when the body fails half-way. Objects are not given an ACL: the bucket
 * (or the CDN in front of it, S3_PUBLIC_BASE_URL) must allow public reads.
 */
export class S3MediaStorage extends MediaStorage implements OnApplicationShutdown {
  private readonly client: S3Client;

  constructor(private readonly settings: S3Settings) {
    super();
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials:
        settings.accessKeyId && settings.secretAccessKey
          ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
          : undefined,
      // Stores other than AWS (and older MinIO) reject or mishandle the CRC32 checksums that the
      // SDK adds by default since 3.729; with a custom endpoint, send checksums only where the
      // API requires them.
      ...(settings.endpoint
        ? {
            requestChecksumCalculation: 'WHEN_REQUIRED',
            responseChecksumValidation: 'WHEN_REQUIRED',
          }
        : {}),
    });
  }

  async put(input: MediaObjectInput): Promise<StoredMediaObject> {
    const objectName = objectStorageName({ ...input, uuid: randomUUID() });
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.settings.bucket,
        Key: objectName,
        Body: input.body,
        ContentType: input.contentType,
        CacheControl: IMMUTABLE_CACHE_CONTROL,
      },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      // Upload aborts a multipart upload itself; a store that cannot abort keeps orphan parts
      // that never become an object (a bucket lifecycle rule should expire them).
      input.body.destroy();
      throw error;
    }
    return {
      bucket: this.settings.bucket,
      objectName,
      url: publicObjectUrl(this.settings, objectName),
    };
  }

  async remove(objectName: string): Promise<void> {
    await this.client.send(
      new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: objectName }),
    );
  }

  /** Last of the stop hooks: uploads of requests in flight and sends of media have ended. */
  onApplicationShutdown(): void {
    this.client.destroy();
  }
}

/**
 * The public URL of an object: S3_PUBLIC_BASE_URL + '/' + name when set (a CDN or the bucket's
 * public domain); otherwise the bucket's own URL on the endpoint (path style or virtual host,
 * as configured), or on AWS S3's regional endpoint when no endpoint is set.
 */
export function publicObjectUrl(settings: S3Settings, objectName: string): string {
  const key = objectName.split('/').map(encodeURIComponent).join('/');
  if (settings.publicBaseUrl) {
    return `${settings.publicBaseUrl.replace(/\/+$/, '')}/${key}`;
  }
  const bucket = encodeURIComponent(settings.bucket);
  if (!settings.endpoint) {
    return `https://${bucket}.s3.${settings.region}.amazonaws.com/${key}`;
  }
  const endpoint = new URL(settings.endpoint);
  const path = endpoint.pathname.replace(/\/+$/, '');
  if (settings.forcePathStyle) {
    return `${endpoint.protocol}//${endpoint.host}${path}/${bucket}/${key}`;
  }
  return `${endpoint.protocol}//${bucket}.${endpoint.host}${path}/${key}`;
}
