/**
 * Failed logins per (e-mail, IP), kept in PostgreSQL so that every instance sees the same
 * count without a shared cache.
 */
export abstract class LoginFailuresRepository {
  /** Failures inside the window, and when the oldest of them leaves it. */
  abstract recentFailures(
    email: string,
    ip: string,
    since: Date,
  ): Promise<{ count: number; oldestAt: Date | null }>;
  abstract record(email: string, ip: string, at: Date): Promise<void>;
  abstract clear(email: string, ip: string): Promise<void>;
  abstract purgeOlderThan(cutoff: Date): Promise<void>;
}
