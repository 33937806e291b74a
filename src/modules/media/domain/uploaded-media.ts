/** One upload, as docs/API-RULES.md §8 describes it. */
export interface UploadedMedia {
  url: string;
  /** The original name, as the client sent it. */
  filename: string;
  size: number;
  type: string;
  bucket: string;
  objectName: string;
}
