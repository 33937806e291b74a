import { UnitOfWork } from '../../../common/persistence/transaction';
import { Injectable } from '@nestjs/common';
import { InvalidInputError, ValidationFailedError } from '../../../common/errors/domain-error';
import { Metrics } from '../../../common/metrics/metrics';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import { GatewayConfigsService } from '../../gateway/application/gateway-configs.service';
import { gatewayFailure } from '../../gateway/domain/gateway-config.errors';
import {
  GatewayChat,
  GatewayContact,
  GatewayError,
  GatewayGroup,
  GatewayTarget,
  MessagingGateway,
} from '../../gateway/domain/messaging-gateway';
import {
  emptySyncSummary,
  gatewaySyncRecords,
  isGroupJid,
  SYNC_COLUMNS,
  SyncEntry,
} from '../domain/gateway-sync-plan';
import type { UserDatabase } from '../domain/user-database.entity';
import { RecordBatches } from '../infrastructure/record-batches.repository';
import { RecordsRepository } from '../infrastructure/records.repository';
import { UserDatabasesRepository } from '../infrastructure/user-databases.repository';
import { LargeDatabaseIndexing } from './large-database-indexing';
import { UserDatabasesService } from './user-databases.service';

export interface GatewaySyncRequest {
  databaseId: number | null;
  gatewayConfigId: number;
  name: string | null;
  description: string | null;
  includeGroups: boolean;
  includeGroupMembers: boolean;
  includeUnsavedContacts: boolean;
  includeContactsWithoutPhone: boolean;
  deduplicate: boolean;
}

interface GatewayData {
  contacts: GatewayContact[];
  groups: GatewayGroup[];
  chats: GatewayChat[];
}

/**
 * POST /api/user-databases/gateway/sync: a GATEWAY database built from an instance's contacts
 * (and, on request, its groups, group members and unsaved chats). Updating a database
 * replaces its records with the fresh read, in one transaction.
 */
@Injectable()
export class GatewaySyncService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly recordBatches: RecordBatches,
    private readonly userDatabases: UserDatabasesService,
    private readonly databases: UserDatabasesRepository,
    private readonly records: RecordsRepository,
    private readonly indexing: LargeDatabaseIndexing,
    private readonly gatewayConfigs: GatewayConfigsService,
    private readonly gateway: MessagingGateway,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
  ) {}

  async sync(
    companyId: number,
    request: GatewaySyncRequest,
  ): Promise<{ database: UserDatabase; created: boolean }> {
    await this.checkTarget(companyId, request);
    const { target } = await this.gatewayConfigs.resolveTarget(companyId, request.gatewayConfigId);
    const entries = entriesOf(await this.read(target, request), request);
    const summary = emptySyncSummary(entries.length);
    const result = await this.unitOfWork.run(async (tx) => {
      const now = this.clock.now();
      const created = request.databaseId === null;
      const database = created
        ? await this.userDatabases.createWithinLimit(tx, {
            companyId,
            name: request.name as string,
            description: request.description,
            origin: 'GATEWAY',
            columns: [...SYNC_COLUMNS],
          })
        : await this.databases.lockOwned(tx, companyId, request.databaseId as number);
      const removed = created ? 0 : await this.records.deleteAll(tx, database.id);
      const writer = this.recordBatches.open(tx, { databaseId: database.id, companyId, now });
      // Planned while written, in slices: tens of thousands of contacts would hold the
      // event loop for a tenth of a second in one go.
      await writer.write(
        gatewaySyncRecords(entries, request, this.config.defaultCountryCode, summary),
      );
      const written = await writer.finish();
      database.recordSync(
        {
          configId: request.gatewayConfigId,
          includeGroups: request.includeGroups,
          summary,
          rowCount: database.rowCount - removed + written,
          name: request.name,
          description: request.description,
        },
        now,
      );
      const saved = await this.databases.save(database, tx);
      await this.indexing.onLoaded(tx, database.id, saved.rowCount);
      return { database: saved, created, written };
    });
    this.metrics.countImportedRows('gateway_sync', result.written);
    await this.indexing.afterCommit(result.written, result.database.rowCount);
    return { database: result.database, created: result.created };
  }

  /** What can be refused before the gateway is asked. */
  private async checkTarget(companyId: number, request: GatewaySyncRequest): Promise<void> {
    if (request.databaseId === null) {
      if (!request.name) {
        throw new ValidationFailedError([['name', 'é obrigatório ao criar uma base']]);
      }
      await this.userDatabases.assertBelowLimit(companyId);
      return;
    }
    const database = await this.databases.findOwnedOrFail(companyId, request.databaseId);
    database.assertWritable();
    if (database.origin !== 'GATEWAY') {
      throw new InvalidInputError(
        'USER_DATABASE.NOT_GATEWAY',
        'Só bases criadas por sincronização com o gateway podem ser sincronizadas de novo',
      );
    }
  }

  /**
   * One response at a time (each capped in bytes by the gateway adapter), counting rows as
   * they come: past GATEWAY_SYNC_MAX_ROWS the sync stops before anything is written.
   */
  private async read(target: GatewayTarget, request: GatewaySyncRequest): Promise<GatewayData> {
    const rows = new SyncRowBudget(this.config.gatewaySyncMaxRows);
    try {
      const contacts = rows.take(await this.gateway.findContacts(target), (list) => list.length);
      const wantsGroups = request.includeGroups || request.includeGroupMembers;
      const groups = wantsGroups
        ? rows.take(await this.gateway.fetchGroups(target, request.includeGroupMembers), (list) =>
            list.reduce((sum, group) => sum + 1 + group.participants.length, 0),
          )
        : [];
      const chats = request.includeUnsavedContacts
        ? rows.take(await this.gateway.findChats(target), (list) => list.length)
        : [];
      return { contacts, groups, chats };
    } catch (error) {
      throw error instanceof GatewayError ? gatewayFailure(error) : error;
    }
  }
}

/** Rows read from the gateway so far, against the cap of one sync. */
class SyncRowBudget {
  private used = 0;

  constructor(private readonly max: number) {}

  take<T>(rows: T, count: (rows: T) => number): T {
    this.used += count(rows);
    if (this.used > this.max) {
      throw new InvalidInputError(
        'USER_DATABASE.SYNC_TOO_LARGE',
        `A instância tem mais de ${this.max.toLocaleString('pt-BR')} contatos, conversas e participantes: a sincronização foi cancelada sem alterar nada`,
      );
    }
    return rows;
  }
}

/**
 * Entries in the order they are kept when repeated: contacts, then groups and their members,
 * then unsaved chats. Group rows among the contacts are groups too.
 */
function entriesOf(data: GatewayData, request: GatewaySyncRequest): SyncEntry[] {
  const names = new Map(data.contacts.map((c) => [c.remoteJid, c.pushName]));
  const entries: SyncEntry[] = data.contacts.map((contact) => ({
    kind: contact.isGroup ? 'group' : 'contact',
    jid: contact.remoteJid,
    name: contact.pushName,
  }));
  for (const group of data.groups) {
    if (request.includeGroups) {
      entries.push({ kind: 'group', jid: group.id, name: group.subject });
    }
    if (request.includeGroupMembers) {
      for (const member of group.participants) {
        entries.push({
          kind: 'group_member',
          jid: member.id,
          phoneJid: member.phoneNumber,
          name:
            names.get(member.id) ??
            (member.phoneNumber ? names.get(member.phoneNumber) : undefined) ??
            null,
        });
      }
    }
  }
  for (const chat of data.chats) {
    if (!chat.isSaved) {
      entries.push({
        kind: isGroupJid(chat.remoteJid) ? 'group' : 'unsaved',
        jid: chat.remoteJid,
        name: chat.pushName,
      });
    }
  }
  return entries;
}
