declare const OPEN_TRANSACTION: unique symbol;

/**
 * An open database transaction as the application layer holds it: a handle to pass to the
 * repositories that must write inside it, never something to query with. Which library keeps
 * the connection is infrastructure's business (see `database/transactions.ts`), so a use case
 * reads the same whatever the adapter.
 */
export interface Transaction {
  readonly [OPEN_TRANSACTION]: true;
}

/**
 * Runs work in one database transaction: committed when `work` resolves, rolled back when it
 * throws. The shared kernel's only port: every module's use cases open transactions through it.
 */
export abstract class UnitOfWork {
  abstract run<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
}
