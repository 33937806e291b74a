import { Injectable } from '@nestjs/common';
import { BackgroundWorker, WorkerContext } from '../../../common/work/background-worker';
import { SystemContactsRecorder } from '../../user-databases/application/system-contacts.recorder';
import { UnitOfWork } from '../../../common/persistence/transaction';
import { UnrecordedSentRepository } from '../infrastructure/unrecorded-sent.repository';

/** Sent contacts copied per transaction. */
export const SYSTEM_CONTACTS_BATCH = 1_000;
/** How soon a sent contact shows in the SYSTEM database while campaigns are sending. */
const POLL_MS = 1_000;

/**
 * Copies sent contacts into the company's SYSTEM database in batches, off the send path: a
 * per-message upsert (and the database's row count) in every send's transaction made all of a
 * company's campaigns queue on one row. A contact's SENT row is the durable record, so a crash
 * between sending and copying only delays the copy.
 */
@Injectable()
export class SystemContactsFeed extends BackgroundWorker {
  constructor(
    private readonly unrecordedSent: UnrecordedSentRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly recorder: SystemContactsRecorder,
    context: WorkerContext,
  ) {
    super(context, { name: 'system-contacts', idleMs: POLL_MS });
  }

  /** Copies one batch; answers 0 (go on) while full batches keep coming. */
  async step(): Promise<number | null> {
    const copied = await this.unitOfWork.run(async (tx) => {
      const sent = await this.unrecordedSent.claimUnrecordedSent(tx, SYSTEM_CONTACTS_BATCH);
      await this.recorder.recordSent(tx, sent);
      return sent.length;
    });
    if (copied > 0) {
      this.logger.debug({ copied }, 'Sent contacts copied to SYSTEM databases');
    }
    return copied === SYSTEM_CONTACTS_BATCH ? 0 : null;
  }
}
