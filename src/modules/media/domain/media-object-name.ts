import { join } from 'node:path';
import { ACCEPTED_EXTENSIONS } from './media-kind';

/**
 * Names of stored media (docs/API-RULES.md §8). Every name carries a random UUID, so a name is
 * never reused and its content never changes. Dates are UTC.
 */
export interface MediaObjectNameParts {
  companyId: number;
  at: Date;
  uuid: string;
  extension: string;
}

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** Object storage: `companies/{companyId}/{yyyy}/{MM}/{dd}/{uuid}.{ext}`. */
export function objectStorageName({
  companyId,
  at,
  uuid,
  extension,
}: MediaObjectNameParts): string {
  return `companies/${companyId}/${pad(at.getUTCFullYear(), 4)}/${pad(at.getUTCMonth() + 1)}/${pad(at.getUTCDate())}/${uuid}.${extension}`;
}

/** Local directory: the flat `{companyId}-{yyyyMMdd}-{uuid}.{ext}`. */
export function localFileName({ companyId, at, uuid, extension }: MediaObjectNameParts): string {
  return `${companyId}-${pad(at.getUTCFullYear(), 4)}${pad(at.getUTCMonth() + 1)}${pad(at.getUTCDate())}-${uuid}.${extension}`;
}

/**
 * Exactly the names localFileName produces. GET /media/files/{filename} serves nothing else, so
 * no `..`, separator, encoded traversal or dot-file can ever reach the file system.
 */
const LOCAL_FILE_NAME = new RegExp(
  `^[1-9][0-9]{0,15}-[0-9]{8}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.(${ACCEPTED_EXTENSIONS.join('|')})$`,
);

export function isLocalFileName(name: string): boolean {
  return LOCAL_FILE_NAME.test(name);
}

export const LOCAL_MEDIA_BUCKET = 'local';

/** DATA_DIR/media: where local media live. */
export function localMediaDirectory(dataDir: string): string {
  return join(dataDir, 'media');
}
