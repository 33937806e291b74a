import { retentionPolicy } from '../retention/retention-policies';

/** Idempotency keys answer retries for 24 hours, then nothing needs them. */
const IDEMPOTENCY_KEY_DAYS = 1;

export const idempotencyKeysRetention = retentionPolicy(() => ({
  name: 'idempotency keys',
  table: 'idempotency_keys',
  key: 'ctid',
  expired: `created_at < now() - $1::interval`,
  days: IDEMPOTENCY_KEY_DAYS,
}));
