import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Transaction, UnitOfWork } from '../common/persistence/transaction';

/**
 * The TypeORM side of `Transaction`: the handle the application passes around is the
 * transaction's EntityManager itself, branded, so handing it on costs nothing on the hot path.
 */
export function managerOf(tx: Transaction): EntityManager {
  return tx as unknown as EntityManager;
}

export function transactionOf(manager: EntityManager): Transaction {
  return manager as unknown as Transaction;
}

@Injectable()
export class TypeOrmUnitOfWork extends UnitOfWork {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(transactionOf(manager)));
  }
}
