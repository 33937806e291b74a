import type { BlockListStats } from '../../domain/block-list-stats';
import type { BlockedBy } from '../../domain/blocked-by';
import type { BlockedContact } from '../../domain/blocked-contact.entity';
import type { EntityManager } from 'typeorm';
export interface NewBlock {
  reason: string | null;
  blockedBy: BlockedBy;
  blockedAt: Date;
}

export interface ActivePageQuery {
  offset: number;
  limit: number;
  /** Digits that the number must contain; empty for every number. */
  digits: string;
}

export abstract class BlockedContactsRepository {
  /** The new or re-activated block, or null when the number was already actively blocked. */
  abstract blockOne(
    companyId: number,
    phone: string,
    block: NewBlock,
    manager?: EntityManager,
  ): Promise<BlockedContact | null>;
  /** How many of the distinct `phones` were newly blocked (inserted or re-activated). */
  abstract blockMany(companyId: number, phones: string[], block: NewBlock): Promise<number>;
  abstract activeAmong(companyId: number, phones: string[]): Promise<Set<string>>;
  /** False when the number was not actively blocked. */
  abstract unblock(companyId: number, phone: string, at: Date): Promise<boolean>;
  abstract stats(companyId: number): Promise<BlockListStats>;
  abstract countActive(companyId: number, digits: string): Promise<number>;
  /** Newest block first. */
  abstract findActivePage(companyId: number, query: ActivePageQuery): Promise<BlockedContact[]>;
}
