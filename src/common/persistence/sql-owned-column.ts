import { Column } from 'typeorm';

/**
 * A column only hand-written SQL writes (a worker's lease, the engine's clocks): mapped so that
 * the entities describe the whole table, but never loaded, inserted or updated by TypeORM, so
 * saving an entity can never overwrite it.
 */
export function SqlOwnedColumn(
  name: string,
  type: 'timestamptz' | 'varchar',
  length?: number,
): PropertyDecorator {
  return Column({
    name,
    type,
    length,
    nullable: true,
    select: false,
    insert: false,
    update: false,
  });
}
