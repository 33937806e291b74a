import { Injectable } from '@nestjs/common';
import { BackgroundWorker, WorkerContext } from '../../../common/work/background-worker';
import {
  CAMPAIGN_DELETIONS_CHANNEL,
  CampaignDeletionsRepository,
} from '../infrastructure/campaign-deletions.repository';

/** Contacts deleted per transaction: short enough that no other query waits on it. */
export const DELETION_BATCH = 5_000;
/** The poll that finds deletions left by a crash or announced while no loop listened. */
const IDLE_MS = 10_000;
/** How soon it looks again at a deletion waiting for the SYSTEM-contacts feed. */
const AWAIT_FEED_MS = 1_000;

/**
 * Deletes the contacts of deleted campaigns in batches, off the request (docs/ARCHITECTURE.md,
 * "work engine"). The campaign itself went in the request's transaction, with the
 * `campaign_deletions` row that queues this work, so a kill -9 at any point leaves either the
 * whole campaign or a queue entry that the next start finishes; every batch is its own
 * transaction, so one half done is never seen, and two instances take different rows.
 */
@Injectable()
export class CampaignDeletionsWorker extends BackgroundWorker {
  constructor(
    private readonly deletions: CampaignDeletionsRepository,
    context: WorkerContext,
  ) {
    super(context, {
      name: 'campaign-deletions',
      idleMs: IDLE_MS,
      wakeOn: CAMPAIGN_DELETIONS_CHANNEL,
    });
  }

  /** One batch; answers 0 (go on) while full batches keep coming. */
  async step(): Promise<number | null> {
    const deleted = await this.deletions.purgeBatch(DELETION_BATCH);
    if (deleted === DELETION_BATCH) {
      return 0;
    }
    const left = await this.deletions.closePurged();
    if (deleted > 0 || left > 0) {
      this.logger.debug({ deleted, left }, 'Deleted campaigns’ contacts removed');
    }
    return left > 0 ? AWAIT_FEED_MS : null;
  }
}
