import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** Express's default ETag of a body (the `etag` package, weak): what res.json would send. */
export function weakEtagOf(body: string): string {
  const hash = createHash('sha1').update(body, 'utf8').digest('base64').slice(0, 27);
  return `W/"${Buffer.byteLength(body, 'utf8').toString(16)}-${hash}"`;
}

/** The headers Express's res.json sends with `body`, computed once for a body that never changes. */
export function jsonHeadersOf(body: string): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body, 'utf8')),
    ETag: weakEtagOf(body),
  };
}

/** Answers `body` (JSON text) header for header as Express's res.json, on a response Express never saw. */
export function writeJson(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = jsonHeadersOf(body),
): void {
  response.writeHead(status, headers).end(body);
}
