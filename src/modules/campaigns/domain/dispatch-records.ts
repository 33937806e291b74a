import type { CampaignContent, WaitingReason } from './campaign.entity';
import type { SendingWindow } from '../../../common/time/sending-window';
import type { AutoPauseThresholds } from '../../../common/messaging/auto-pause';
import type { WatchedSends } from './ban-signals';
import type { WatchedCountsOfFailure } from './watched-counts';
import type { SendFailureKind } from './contact-failure-kind';

/**
 * What the engine reads and writes of campaigns and contacts, as the dispatch repositories
 * (campaigns/infrastructure/dispatch-*.repository.ts) answer it.
 */

/** The campaign as the engine needs it for one send. */
export interface DispatchCampaign extends CampaignContent {
  id: number;
  companyId: number;
  status: string;
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
  /** Its pool (domain/sender-pool.ts) when it is one sender of a pool; null for a campaign of its own. */
  poolId: number | null;
  /** Every `longPauseEvery` messages sent, a pause in [longPauseMin, longPauseMax] seconds. */
  longPauseEvery: number | null;
  longPauseMin: number | null;
  longPauseMax: number | null;
  /** Sends watched since the campaign started or was resumed (see watched-counts.ts). */
  watchedSends: number;
  /** The company's thresholds for ban signals; null: the defaults. */
  autoPause: AutoPauseThresholds | null;
  /**
   * How late, in seconds, this read of the campaign came behind the later of its next_send_at
   * and its instance's pause (0 when not late, null when none).
   */
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
  /** The campaign's pause range: its own pause after the instance's last message falls in it. */
  minInterval: number;
  maxInterval: number;
  longPauseEvery: number | null;
  /** Warm contacts first (the replies issue's warmFirst). */
  warmFirst: boolean;
  /**
   * The messages a second its number may send: a Cloud API number's throughput; null for an
   * Evolution instance, which is paced by pauses only (throughput-turns.ts).
   */
  throughputPerSecond: number | null;
  /** The campaign's window, or its company's default; null: always. */
  sendingWindow: SendingWindow | null;
  /**
   * The claim held the campaign's instance for this worker (the campaign's pause after its
   * last message over, nobody else holding it, its figure of the day not reached): the turn may send.
   * False: the instance is to be held through InstancePacing, which says why not when it
   * cannot be (its pacing row does not exist yet, its day is full, another sender took it).
   */
  instanceHeld: boolean;
  /** With the hold: messages the instance may still send today; null: no limit. */
  quota: number | null;
  /**
   * The send the claim began: its first contact marked SENDING and committed, when the
   * campaign may send at once (instance held, company active, no window to check, no
   * interrupted send to settle first); null: the dispatcher begins it.
   */
  firstSend: BegunSend | null;
}

/** A send begun: the campaign under its lease, and its contact marked SENDING and committed. */
export interface BegunSend {
  campaign: DispatchCampaign;
  contact: ContactToSend;
}

/** A delivered message, as the delivery statement records it. */
export interface Delivery {
  contactId: string;
  /** The gateway's key of the message. */
  messageId: string | null;
  /** What the contact was sent (its drawn variants, its variables filled): `sent_text`. */
  text: string | null;
  /**
   * The campaign's own wait after it (delivery-rules.ts: pauseAfterDelivery), stored as its
   * next send only when it is the long pause (`waitingReason` LONG_PAUSE): the ordinary pause
   * is kept on the instance (`pauseDraw`).
   */
  pauseSeconds: number;
  waitingReason: WaitingReason | null;
  /** Where the pause after it falls in [min, max], 0–1 (send-pauses.ts): the instance's pause. */
  pauseDraw: number;
  /**
   * The turn on the instance ends with this message (a pause follows, or no more may go out
   * under this lease): the statement gives the lease and the instance back, unless a progress
   * event or the completion is due (`milestoneCount`), which keep the lease for their
   * transaction.
   */
  endsTurn: boolean;
  /** The processed count at which a progress event or the completion is due. */
  milestoneCount: number;
  /** Messages of this turn on the instance, this one included, for the instance's day. */
  turnMessages: number;
}

/** What a delivery statement did. */
export interface DeliveryRecorded extends CampaignCounters {
  /**
   * The worker still holds the lease. False: its turn is over — it gave the lease back with
   * the turn, or had lost it — and the statement counted the turn's messages for the instance
   * and ended the worker's hold on it: nothing is left to do.
   */
  leaseHeld: boolean;
  contactMoved: boolean;
}

/** One message of a turn at the number's throughput that went out. */
export interface DeliveredContact {
  contactId: string;
  /** The gateway's key of the message. */
  messageId: string | null;
  /** What the contact was sent: `sent_text`. */
  text: string | null;
}

/** What a statement recording many deliveries did. */
export interface BatchDelivered extends CampaignCounters {
  /** The worker still holds the lease: its turn may go on. */
  leaseHeld: boolean;
  /** The contacts whose rows moved (were counted). */
  contactsMoved: number;
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
  repliedContacts: number;
}

/** Why a contact failed: its reason for people, its kind (for retries), what it adds to the watched counters. */
export interface ContactFailure {
  reason: string;
  kind: SendFailureKind;
  /** From watched-counts.ts: watchedCountsOfFailure. */
  counts: WatchedCountsOfFailure;
}

/** A contact's failure counted: the campaign's counters and its watched sends after it. */
export interface FailedContactCounters extends CampaignCounters, WatchedSends {
  /** The contact's row moved (it was counted). */
  contactMoved: boolean;
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
