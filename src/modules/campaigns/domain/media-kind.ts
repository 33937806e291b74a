import type { CampaignMediaType } from './campaign.entity';

const BY_EXTENSION: Record<string, CampaignMediaType> = {
  jpg: 'image',
  jpeg: 'image',
  png: 'image',
  gif: 'image',
  webp: 'image',
  mp4: 'video',
  '3gp': 'video',
  mov: 'video',
  avi: 'video',
  mkv: 'video',
  mp3: 'audio',
  ogg: 'audio',
  oga: 'audio',
  opus: 'audio',
  aac: 'audio',
  m4a: 'audio',
  wav: 'audio',
  pdf: 'document',
  doc: 'document',
  docx: 'document',
  xls: 'document',
  xlsx: 'document',
  ppt: 'document',
  pptx: 'document',
  csv: 'document',
  txt: 'document',
  zip: 'document',
};

const MIME_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  mp4: 'video/mp4',
  '3gp': 'video/3gpp',
  mov: 'video/quicktime',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  aac: 'audio/aac',
  m4a: 'audio/mp4',
  wav: 'audio/wav',
  pdf: 'application/pdf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

const DATA_URI = /^data:([\w.+-]+\/[\w.+-]+)(?:;[\w=.+-]+)*;base64,/i;

export function isDataUri(value: string): boolean {
  return DATA_URI.test(value);
}

export function dataUriMimeType(value: string): string | null {
  return DATA_URI.exec(value)?.[1]?.toLowerCase() ?? null;
}

function extensionOf(value: string): string | null {
  try {
    const path = new URL(value).pathname;
    const match = /\.([A-Za-z0-9]{1,5})$/.exec(path);
    return match ? match[1].toLowerCase() : null;
  } catch {
    return null;
  }
}

/** The media kind of a URL (by extension) or a data URI (by its MIME type); null when unknown. */
export function detectMediaType(
  mediaUrl: string,
  fileName?: string | null,
): CampaignMediaType | null {
  const mime = dataUriMimeType(mediaUrl);
  if (mime) {
    const family = mime.split('/')[0];
    if (family === 'image' || family === 'video' || family === 'audio') {
      return family;
    }
    return 'document';
  }
  const extension =
    extensionOf(mediaUrl) ??
    (fileName ? (/\.([A-Za-z0-9]{1,5})$/.exec(fileName)?.[1] ?? null) : null);
  return extension ? (BY_EXTENSION[extension.toLowerCase()] ?? null) : null;
}

/** MIME type to announce to the gateway, from the data URI or the file's extension. */
export function mimeTypeFor(mediaUrl: string, fileName?: string | null): string | undefined {
  const mime = dataUriMimeType(mediaUrl);
  if (mime) {
    return mime;
  }
  const extension =
    (fileName && /\.([A-Za-z0-9]{1,5})$/.exec(fileName)?.[1]) || extensionOf(mediaUrl);
  return extension ? MIME_BY_EXTENSION[extension.toLowerCase()] : undefined;
}

const EXTENSION_BY_MIME: Record<string, string> = Object.fromEntries(
  Object.entries(MIME_BY_EXTENSION)
    .filter(([extension]) => extension !== 'jpeg')
    .map(([extension, mime]) => [mime, extension]),
);

function fileExtension(name: string): string | null {
  return /\.([A-Za-z0-9]{1,5})$/.exec(name)?.[1]?.toLowerCase() ?? null;
}

function lastPathSegment(mediaUrl: string): string | null {
  try {
    const segment = new URL(mediaUrl).pathname.split('/').pop() ?? '';
    return segment ? decodeURIComponent(segment) : null;
  } catch {
    return null;
  }
}

/**
 * The name a document goes out with, always with an extension: the gateway derives the
 * document's MIME type from it, and without one it sends the literal mimetype "false" (or
 * fails). From the given name, else the URL's file name, else "documento"; the extension from
 * the name itself, else the MIME type, else the URL. Null when no extension can be known.
 */
export function documentFileName(
  mediaUrl: string,
  fileName: string | null,
  mimeType: string | null | undefined,
): string | null {
  const fromUrl = isDataUri(mediaUrl) ? null : lastPathSegment(mediaUrl);
  const base = fileName?.trim() || (fromUrl && fileExtension(fromUrl) ? fromUrl : null);
  if (base && fileExtension(base)) {
    return base;
  }
  const extension =
    (mimeType ? EXTENSION_BY_MIME[mimeType.toLowerCase()] : undefined) ??
    (fromUrl ? fileExtension(fromUrl) : null);
  return extension ? `${base ?? 'documento'}.${extension}` : null;
}
