import { Column } from 'typeorm';

/** A row people edit: when it was created and when it last changed, both set by the domain. */
export abstract class Timestamped {
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
