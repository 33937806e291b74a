/** LIKE's wildcards and its escape character escaped, so that a `%` or `_` typed in a search matches itself. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A LIKE pattern matching any text that contains `text` as typed. */
export function likeContaining(text: string): string {
  return `%${escapeLike(text)}%`;
}
