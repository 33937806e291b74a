import { Injectable } from '@nestjs/common';
import { normalizePhone } from '../../../common/phone/phone-number';
import type { Transaction } from '../../../common/persistence/transaction';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import { BlockImportSummary, planBlockImport, summarizeBlockImport } from '../domain/block-import';
import {
  InvalidPhoneNumberError,
  PhoneAlreadyBlockedError,
  PhoneNotBlockedError,
} from '../domain/block-list.errors';
import type { BlockListStats } from '../domain/block-list-stats';
import type { BlockedBy } from '../domain/blocked-by';
import type { BlockedContact } from '../domain/blocked-contact.entity';
import { BlockedContactsRepository } from '../infrastructure/blocked-contacts.repository';

export interface BlockedContactsPageQuery {
  page: number;
  size: number;
  /** Any part of the number; only its digits count. */
  search: string;
}

export interface BlockedContactsPage {
  contacts: BlockedContact[];
  totalElements: number;
  page: number;
  size: number;
}

/**
 * A company's block list. Every method takes the company first and accepts phone numbers in
 * any format that normalizePhone reads, except activeBlockedAmong, which takes stored
 * (normalized) numbers.
 */
@Injectable()
export class BlockListService {
  constructor(
    private readonly contacts: BlockedContactsRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** Blocks one number, or re-activates it if it was unblocked; 400 when already blocked. */
  async block(
    companyId: number,
    phoneNumber: string,
    reason?: string | null,
    blockedBy: BlockedBy = 'MANUAL',
  ): Promise<BlockedContact> {
    const phone = this.normalizeOrFail(phoneNumber);
    const blocked = await this.contacts.blockOne(companyId, phone, {
      reason: reasonOrNull(reason),
      blockedBy,
      blockedAt: this.clock.now(),
    });
    if (!blocked) {
      throw new PhoneAlreadyBlockedError();
    }
    return blocked;
  }

  /**
   * A number that replied with an opt-out word: blocked (or re-activated) as OPT_OUT. Answers
   * whether this reply blocked it; a repeated reply changes nothing.
   */
  async optOut(companyId: number, phone: string, tx?: Transaction): Promise<boolean> {
    const blocked = await this.contacts.blockOne(
      companyId,
      phone,
      { reason: 'descadastro por resposta', blockedBy: 'OPT_OUT', blockedAt: this.clock.now() },
      tx,
    );
    return blocked !== null;
  }

  /** Blocks up to 1000 numbers in one statement; invalid ones are reported, not refused. */
  async importNumbers(
    companyId: number,
    phoneNumbers: readonly string[],
    reason?: string | null,
  ): Promise<BlockImportSummary> {
    const plan = planBlockImport(phoneNumbers, (input) => this.normalize(input));
    const newlyBlocked =
      plan.phones.length === 0
        ? 0
        : await this.contacts.blockMany(companyId, plan.phones, {
            reason: reasonOrNull(reason),
            blockedBy: 'IMPORT',
            blockedAt: this.clock.now(),
          });
    return summarizeBlockImport(plan, newlyBlocked);
  }

  /** Each input, as given, mapped to whether it is actively blocked; unreadable ones are not. */
  async check(companyId: number, phoneNumbers: readonly string[]): Promise<Map<string, boolean>> {
    const normalized = new Map(phoneNumbers.map((input) => [input, this.normalize(input)]));
    const phones = [...new Set(normalized.values())].filter(
      (phone): phone is string => phone !== null,
    );
    const blocked = await this.activeBlockedAmong(companyId, phones);
    return new Map(
      [...normalized].map(([input, phone]) => [input, phone !== null && blocked.has(phone)]),
    );
  }

  /** The subset of `phones` (normalized, as stored) that the company actively blocks. One query. */
  async activeBlockedAmong(companyId: number, phones: string[]): Promise<Set<string>> {
    if (phones.length === 0) {
      return new Set();
    }
    return this.contacts.activeAmong(companyId, phones);
  }

  /** The row stays, inactive, as history; 404 when the number is not actively blocked. */
  async unblock(companyId: number, phoneNumber: string): Promise<void> {
    const phone = this.normalizeOrFail(phoneNumber);
    if (!(await this.contacts.unblock(companyId, phone, this.clock.now()))) {
      throw new PhoneNotBlockedError();
    }
  }

  stats(companyId: number): Promise<BlockListStats> {
    return this.contacts.stats(companyId);
  }

  async list(companyId: number, query: BlockedContactsPageQuery): Promise<BlockedContactsPage> {
    const digits = query.search.replace(/\D/g, '');
    const [totalElements, contacts] = await Promise.all([
      this.contacts.countActive(companyId, digits),
      this.contacts.findActivePage(companyId, {
        offset: query.page * query.size,
        limit: query.size,
        digits,
      }),
    ]);
    return { contacts, totalElements, page: query.page, size: query.size };
  }

  private normalize(input: string): string | null {
    return normalizePhone(input, this.config.defaultCountryCode);
  }

  private normalizeOrFail(input: string): string {
    const phone = this.normalize(input);
    if (phone === null) {
      throw new InvalidPhoneNumberError();
    }
    return phone;
  }
}

/** A blank reason says nothing; it is kept as no reason. */
function reasonOrNull(reason: string | null | undefined): string | null {
  return reason?.trim() ? reason : null;
}
