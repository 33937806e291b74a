import type { Response } from 'supertest';

/** Asserts the error body of docs/API-RULES.md §1 and returns its message. */
export function expectErrorBody(response: Response, status: number, path?: string): string {
  expect(response.status).toBe(status);
  const body = response.body as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['error', 'message', 'path', 'status', 'timestamp']);
  expect(body.status).toBe(status);
  expect(typeof body.error).toBe('string');
  expect(typeof body.message).toBe('string');
  expect(new Date(body.timestamp as string).toISOString()).toBe(body.timestamp);
  if (path) {
    expect(body.path).toBe(path);
  }
  return body.message as string;
}
