import type { CampaignType } from '../../domain/campaign-status';
import type {
  CampaignMediaType,
  PollDefinition,
  WaitingReason,
} from '../../domain/campaign.entity';
import type { SendingWindow } from '../../../../common/time/sending-window';
import type { AutoPauseThresholds } from '../../../../common/messaging/auto-pause';
import type { SendSignal, WatchedSends } from '../../domain/ban-signals';
import type { SentContact } from '../../../user-databases/application/system-contacts.recorder';

export type { SentContact };
import type { DataSource, EntityManager } from 'typeorm';
import type { SendFailureKind } from '../../domain/contact-failure-kind';
/** The campaign as the engine needs it for one send. */
export interface DispatchCampaign {
  id: number;
  companyId: number;
  status: string;
  type: CampaignType;
  messageContent: string | null;
  mediaUrl: string | null;
  mediaType: CampaignMediaType | null;
  fileName: string | null;
  caption: string | null;
  pollData: PollDefinition | null;
  gatewayConfigId: number;
  databaseConfigId: number | null;
  minInterval: number;
  maxInterval: number;
  notificationPhone: string | null;
  name: string;
  totalContacts: number;
  sentContacts: number;
  failedContacts: number;
  progressStep: number;
  startedAt: Date | null;
  disconnectedSince: Date | null;
  lockedBy: string | null;
  automationRunId: string | null;
  /** Every `longPauseEvery` messages sent, a pause in [longPauseMin, longPauseMax] seconds. */
  longPauseEvery: number | null;
  longPauseMin: number | null;
  longPauseMax: number | null;
  /** How late, in seconds, this read of the campaign came behind its next_send_at (0 when not late, null when none). */
  sendLagSeconds?: number | null;
  /**
   * The company may send (false once an admin deactivated it). Read under the campaign's row
   * lock and at claim time; the one-statement send path leaves it out.
   */
  companyActive?: boolean;
}

/** A campaign this worker just leased, with what decides whether it may send now. */
export interface ClaimedCampaign {
  id: number;
  /** Taken from a holder whose lease ran out: only then can a contact have been left SENDING. */
  takenOver: boolean;
  companyActive: boolean;
  gatewayConfigId: number;
  /** The shortest pause the campaign allows: its instance must have been quiet that long. */
  minInterval: number;
  /** The campaign's window, or its company's default; null: always. */
  sendingWindow: SendingWindow | null;
}

/** After a message went out: how long the campaign waits (its instance's others draw their own). */
export interface Pauses {
  /** The campaign's pause, drawn in [minInterval, maxInterval]. */
  pauseSeconds: number;
  /** Drawn in [longPauseMin, longPauseMax]; taken instead when a long pause is due. */
  longPauseSeconds: number;
}

export interface ContactToSend {
  id: string;
  phoneNumber: string;
  name: string;
  attempts: number;
  /** On the company's block list now (blocked after the campaign was created). */
  blocked: boolean;
}

export interface CampaignCounters {
  totalContacts: number;
  sentContacts: number;
  failedContacts: number;
  progressStep: number;
  status: string;
  deliveredContacts: number;
  readContacts: number;
}

/** Why a contact failed: its reason for people, its kind (for retries), its ban signal. */
export interface ContactFailure {
  reason: string;
  kind: SendFailureKind;
  signal: SendSignal;
}

/** A contact's failure counted: the campaign's counters and its watched sends after it. */
export interface FailedContactCounters extends CampaignCounters, WatchedSends {
  /** The contact's row moved (it was counted). */
  contactMoved: boolean;
  /** The company's thresholds for ban signals; null: the defaults. */
  autoPause: AutoPauseThresholds | null;
}

/** How a contact goes back to PENDING, and what that says about the campaign. */
export interface Requeue {
  /** The contact's next attempt, from now. */
  retryInMs: number;
  /** False when the attempt never reached WhatsApp's side of things (instance down, our error). */
  countAttempt: boolean;
  /** The campaign's next send, from now. */
  nextSendInMs: number;
  cause: 'gateway' | 'disconnected' | 'internal';
}

export interface RequeueResult {
  /** This worker still held the lease (and gave it back). */
  leaseHeld: boolean;
  /** How long the instance has been disconnected, by the database clock (0 when connected). */
  disconnectedForMs: number;
  /** Since when (one incident, one notice); null when connected. */
  disconnectedSince: Date | null;
  /** Our own errors in a row, this one included (0 unless cause is internal). */
  internalErrorStreak: number;
  /** What the campaign now says it waits for (INSTANCE_… while disconnected). */
  waitingReason: WaitingReason | null;
}

/**
 * The engine's SQL. Campaign rows are claimed with SKIP LOCKED and a lease (locked_by,
 * locked_until), taken over when the lease runs out or its holder's liveness lock is gone. A
 * contact is marked SENDING and committed before the gateway call, so it is never sent twice.
 * Every contact transition is guarded by the statuses the transition table allows it from,
 * and counters move in the same statement as the row they count, by the rows that moved. All
 * times come from the database clock.
 */
export abstract class DispatchRepository {
  abstract transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
  /** Scheduled campaigns whose time came become ACTIVE; returns them for their started events. */
  abstract startDueScheduled(manager: EntityManager, limit: number): Promise<DispatchCampaign[]>;
  /**
   * Leases up to `limit` due ACTIVE campaigns that nobody holds or whose holder's lease ran
   * out (`expireLeasesOfGoneWorkers` ends a dead holder's lease at once): at most one per
   * gateway instance, of instances nobody holds and whose next slot came, the one whose turn
   * was longest ago (round robin). Campaigns this worker still has in flight (a send that
   * outlived its lease) are never claimed again by it.
   */
  abstract claimDue(
    workerId: string,
    limit: number,
    leaseSeconds: number,
    inFlight: readonly number[],
  ): Promise<ClaimedCampaign[]>;
  /**
   * Gives back a lease taken for nothing: the campaign may not send before `until` (its window
   * opens, its instance's day begins or its slot comes), for `reason` (null: only its turn,
   * which keeps a wait for the instance known from its last send).
   */
  abstract defer(
    campaignId: number,
    workerId: string,
    until: Date,
    reason: WaitingReason | null,
  ): Promise<void>;
  /**
   * Ends the leases of workers whose liveness lock is gone (their process died or lost its
   * connection), so that their campaigns are claimed within a second instead of after the
   * lease. Kept off the claim statement: reading pg_locks costs more than a claim.
   */
  abstract expireLeasesOfGoneWorkers(workerId: string): Promise<number>;
  /**
   * The common start of a send in one statement, committed on return (no transaction around
   * it): renews the lease of `workerId` on the campaign (row-locking it) and, when the
   * campaign is ACTIVE and its company active, marks its next ready contact SENDING. The
   * campaign is null when the lease is not this worker's; the contact is null when nothing
   * may be sent now.
   */
  abstract beginLeasedSend(
    campaignId: number,
    workerId: string,
    leaseSeconds: number,
  ): Promise<{ campaign: DispatchCampaign | null; contact: ContactToSend | null }>;
  /** Locks the campaign row for this transaction; pause and cancel wait for it, then win. */
  abstract lockCampaign(
    manager: EntityManager,
    campaignId: number,
  ): Promise<DispatchCampaign | null>;
  /**
   * A contact left SENDING by a worker that died or lost its lease may or may not have been
   * sent: it becomes UNCERTAIN, to be reconciled with the gateway's store, never sent again.
   * Called by the new lease holder; returns the contacts, for the automations' sent-log.
   */
  abstract doubtInterruptedSends(
    manager: EntityManager,
    campaignId: number,
    firstReconcileDelayMs: number,
  ): Promise<ContactToSend[]>;
  /** Marks the next ready contact SENDING (an attempt begins) and returns it. */
  abstract takeNextContact(
    manager: EntityManager,
    campaignId: number,
  ): Promise<ContactToSend | null>;
  /**
   * When a campaign with nothing ready should look again: its earliest retry, or a second
   * after its earliest reconciliation is due; null when no contact is unfinished.
   */
  abstract nextLookAt(manager: EntityManager, campaignId: number): Promise<Date | null>;
  /**
   * A delivered message in one statement: the contact SENT (from SENDING, or from UNCERTAIN
   * when the send outlived its lease and another worker is reconciling it: it did go out),
   * the sent counter by the rows that moved, and — while `workerId` still holds the lease —
   * the next send time by the database clock: the long pause when one is due, else the
   * pause; the other campaigns of its instance wait pauses of their own. The lease stays: the
   * caller still has the progress events to write, or the next message to send. `text` is
   * what the contact was sent (its drawn variants, its variables filled): `sent_text`.
   */
  abstract recordDelivered(
    campaignId: number,
    workerId: string,
    contact: { id: string; messageId: string | null; text: string | null },
    pauses: Pauses,
    manager?: EntityManager,
  ): Promise<CampaignCounters & { leaseHeld: boolean; contactMoved: boolean; longPause: boolean }>;
  /**
   * The contact FAILED (not to be sent), with the kind of its failure (what a retry looks
   * at), counted in the same statement. `contactMoved`: the contact's row moved (it was counted).
   */
  abstract failContact(
    manager: EntityManager,
    campaignId: number,
    contactId: string,
    failure: ContactFailure,
  ): Promise<FailedContactCounters>;
  /**
   * The outcome is unknown: the contact UNCERTAIN, its first look into the gateway's store
   * `firstReconcileDelayMs` after the send began. Counters do not move until it is resolved.
   */
  abstract doubtContact(
    manager: EntityManager,
    contactId: string,
    firstReconcileDelayMs: number,
  ): Promise<boolean>;
  /** The contact back to PENDING, and what that says about the campaign (see Requeue). */
  abstract requeueContact(
    manager: EntityManager,
    campaignId: number,
    contactId: string,
    requeue: Requeue,
  ): Promise<void>;
  /**
   * After an outcome that sent nothing: schedules the campaign's next send `nextSendInMs`
   * from now, notes a disconnection or our own error, and gives the lease back — only while
   * `workerId` holds it; a worker that lost it changes nothing here.
   */
  abstract rescheduleAndRelease(
    manager: EntityManager,
    campaignId: number,
    workerId: string,
    next: {
      nextSendInMs: number;
      cause: Requeue['cause'] | 'sent' | 'failed';
      /** A message may have gone out: the instance's other campaigns wait their pauses too. */
      instancePaced?: boolean;
      /** For a disconnection: what the answer proved (INSTANCE_DISCONNECTED when omitted). */
      waitingReason?: WaitingReason;
    },
  ): Promise<RequeueResult>;
  abstract setProgressStep(manager: EntityManager, campaignId: number, step: number): Promise<void>;
  /** Ends `workerId`'s lease, unless it lost it to another worker (whose it then is). */
  abstract releaseLease(
    campaignId: number,
    workerId: string,
    manager?: EntityManager,
  ): Promise<void>;
  /** Gives `workerId`'s lease back, moving the next send to `nextSendAt` when given. */
  abstract release(
    manager: EntityManager | DataSource,
    campaignId: number,
    workerId: string,
    nextSendAt: Date | null,
  ): Promise<void>;
  abstract complete(manager: EntityManager, campaignId: number): Promise<CampaignCounters | null>;
  abstract fail(
    manager: EntityManager,
    campaignId: number,
    reason: string,
  ): Promise<CampaignCounters | null>;
  /** The engine's own pause (our repeated errors, a deactivated company), with its reason. */
  abstract pause(
    manager: EntityManager,
    campaignId: number,
    reason: string,
  ): Promise<CampaignCounters | null>;
  /**
   * Takes up to `limit` SENT contacts not yet copied to the SYSTEM database and marks them
   * copied; the caller copies them in the same transaction, so a crash undoes both.
   */
  abstract claimUnrecordedSent(manager: EntityManager, limit: number): Promise<SentContact[]>;
  /** For the health endpoint: how many campaigns are due and how late the most overdue one is. */
  abstract backlog(): Promise<{ due: number; lagSeconds: number }>;
  /** For the metrics: due ACTIVE campaigns, counted up to `cap` over the due index. */
  abstract countDue(cap: number): Promise<number>;
  /** Milliseconds until the next ACTIVE campaign or scheduled start is due (null: none). */
  abstract msUntilNextDue(): Promise<number | null>;
}
