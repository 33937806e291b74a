/** A multipart upload as the HTTP edge hands it over: the file spooled to disk, the text parts. */
export interface UploadedForm {
  file: { path: string; originalName: string; size: number } | null;
  /** Text parts (and small JSON parts such as `config`) by name. */
  fields: ReadonlyMap<string, string>;
}

/** docs/API-RULES.md §6: database files up to 50 MB. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
