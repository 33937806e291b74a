import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * Failed logins per (e-mail, IP), kept in PostgreSQL so that every instance sees the same
 * count without a shared cache.
 */
@Injectable()
export class LoginFailuresRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Failures inside the window, and when the oldest of them leaves it. */
  async recentFailures(
    email: string,
    ip: string,
    since: Date,
  ): Promise<{ count: number; oldestAt: Date | null }> {
    const [row] = await this.dataSource.query<Array<{ count: number; oldest_at: Date | null }>>(
      `SELECT count(*)::int AS count, min(failed_at) AS oldest_at
         FROM login_failures
        WHERE email = lower($1) AND ip = $2 AND failed_at > $3`,
      [email, ip, since],
    );
    return { count: row.count, oldestAt: row.oldest_at };
  }

  async record(email: string, ip: string, at: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO login_failures (email, ip, failed_at) VALUES (lower($1), $2, $3)`,
      [email, ip, at],
    );
  }

  async clear(email: string, ip: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM login_failures WHERE email = lower($1) AND ip = $2`, [
      email,
      ip,
    ]);
  }

  async purgeOlderThan(cutoff: Date): Promise<void> {
    await this.dataSource.query(`DELETE FROM login_failures WHERE failed_at < $1`, [cutoff]);
  }
}
