import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** One-shot hashing: every authenticated request hashes its token, without a Hash object. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** 32 random bytes, base64url: the access-token format of docs/API-RULES.md §2. */
export function newOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Equal-time comparison of two secrets of any length (both are hashed first). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(
    createHash('sha256').update(a).digest(),
    createHash('sha256').update(b).digest(),
  );
}
