import { QueryFailedError } from 'typeorm';

/** PostgreSQL's unique_violation (23505), as TypeORM reports it. */
export function isUniqueViolation(error: unknown): boolean {
  return (
    error instanceof QueryFailedError &&
    (error.driverError as { code?: string } | undefined)?.code === '23505'
  );
}
