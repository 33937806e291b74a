/**
 * The kinds of file POST /media/upload accepts (docs/API-RULES.md §8), keyed by the extension of the
 * original name. `signatures` are the type names the magic-number detector may report for the
 * bytes of such a file; `package` narrows a ZIP down to the Office Open XML document it must be.
 */
export type MediaCategory = 'image' | 'video' | 'audio' | 'document';

export type OfficePackage = 'word' | 'spreadsheet';

export interface AcceptedMediaKind {
  /** Lower-case extension, without the dot; also the extension of the stored object. */
  extension: string;
  category: MediaCategory;
  /** The MIME type reported in the response and stored with the object. */
  mimeType: string;
  /** Type names (of magic-bytes.js) that the head of the file may match. */
  signatures: readonly string[];
  /** For ZIP-based documents: the Office Open XML package the archive must hold. */
  package?: OfficePackage;
}

/** ISO base media (MP4/QuickTime): the detector reads the `ftyp` box or an early top-level atom. */
const ISO_BASE_MEDIA = ['mp4', 'mov'];
/** Matroska: WebM is a Matroska profile and plays wherever Matroska does. */
const MATROSKA = ['mkv', 'webm'];
/** Ogg: Vorbis is reported as `ogg`, Opus (WhatsApp voice notes) as `ogx`. */
const OGG = ['ogg', 'oga', 'ogx', 'opus'];
/** OLE2 compound files: Word 97-2003 and Excel 97-2003 share the container. */
const COMPOUND_FILE_DOC = ['doc'];
const COMPOUND_FILE_XLS = ['xls'];
const ZIP = ['zip'];

const KINDS: readonly AcceptedMediaKind[] = [
  { extension: 'jpg', category: 'image', mimeType: 'image/jpeg', signatures: ['jpg'] },
  { extension: 'jpeg', category: 'image', mimeType: 'image/jpeg', signatures: ['jpg'] },
  { extension: 'png', category: 'image', mimeType: 'image/png', signatures: ['png', 'apng'] },
  { extension: 'gif', category: 'image', mimeType: 'image/gif', signatures: ['gif'] },
  { extension: 'webp', category: 'image', mimeType: 'image/webp', signatures: ['webp'] },
  { extension: 'mp4', category: 'video', mimeType: 'video/mp4', signatures: ISO_BASE_MEDIA },
  { extension: 'avi', category: 'video', mimeType: 'video/x-msvideo', signatures: ['avi'] },
  { extension: 'mov', category: 'video', mimeType: 'video/quicktime', signatures: ISO_BASE_MEDIA },
  { extension: 'mkv', category: 'video', mimeType: 'video/x-matroska', signatures: MATROSKA },
  { extension: 'mp3', category: 'audio', mimeType: 'audio/mpeg', signatures: ['mp3'] },
  { extension: 'wav', category: 'audio', mimeType: 'audio/wav', signatures: ['wav'] },
  { extension: 'ogg', category: 'audio', mimeType: 'audio/ogg', signatures: OGG },
  { extension: 'm4a', category: 'audio', mimeType: 'audio/mp4', signatures: ISO_BASE_MEDIA },
  { extension: 'aac', category: 'audio', mimeType: 'audio/aac', signatures: ['aac'] },
  { extension: 'pdf', category: 'document', mimeType: 'application/pdf', signatures: ['pdf'] },
  {
    extension: 'doc',
    category: 'document',
    mimeType: 'application/msword',
    signatures: COMPOUND_FILE_DOC,
  },
  {
    extension: 'docx',
    category: 'document',
    mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    signatures: ZIP,
    package: 'word',
  },
  {
    extension: 'xls',
    category: 'document',
    mimeType: 'application/vnd.ms-excel',
    signatures: COMPOUND_FILE_XLS,
  },
  {
    extension: 'xlsx',
    category: 'document',
    mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    signatures: ZIP,
    package: 'spreadsheet',
  },
];

const BY_EXTENSION = new Map(KINDS.map((kind) => [kind.extension, kind]));

export const ACCEPTED_EXTENSIONS: readonly string[] = KINDS.map((kind) => kind.extension);

/** The extension of a file name, lower-cased, without the dot; null when it has none. */
export function extensionOf(fileName: string): string | null {
  const match = /\.([A-Za-z0-9]{1,10})$/.exec(fileName.trim());
  return match ? match[1].toLowerCase() : null;
}

export function acceptedKindFor(extension: string | null): AcceptedMediaKind | null {
  return extension ? (BY_EXTENSION.get(extension.toLowerCase()) ?? null) : null;
}
