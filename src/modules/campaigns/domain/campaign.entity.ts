import type { CampaignTemplate } from './campaign-template';
import {
  Check,
  Column,
  Entity,
  ForeignKey,
  Index,
  PrimaryGeneratedColumn,
  VirtualColumn,
} from 'typeorm';
import {
  CampaignAction,
  CampaignStatus,
  CampaignType,
  nextCampaignStatus,
} from './campaign-status';
import {
  CampaignContent,
  CampaignDefinition,
  CampaignMediaType,
  definitionColumnsOf,
  launchActionOf,
  NOTHING_DONE_YET,
} from './campaign-draft';
import {
  CampaignDraftMoveNotAllowedError,
  CampaignRetryNotAllowedError,
  CampaignRetryWindowPassedError,
  CampaignTransitionNotAllowedError,
} from './campaign.errors';
import type { SendingWindow } from '../../../common/time/sending-window';
import { SqlOwnedColumn } from '../../../common/persistence/sql-owned-column';
import type { PollDefinition } from '../../../common/messaging/poll';
import { Timestamped } from '../../../common/persistence/timestamped';
import type { PoolSender, SenderLoss } from './sender-pool';

export type { CampaignContent, CampaignMediaType, PollDefinition };

/** A campaign a person creates: its definition, its company, and whether it is a draft. */
export interface NewCampaign extends CampaignDefinition {
  companyId: number;
  isDraft: boolean;
}

/**
 * Why an ACTIVE campaign is not sending now, when it is the engine's rules and not its own
 * pause: outside its sending window, its instance's figure of the day reached, a long pause,
 * or its instance cannot send (a send or a connection event proved it; INSTANCE_NOT_PAIRED
 * when the instance was never paired: its QR code must be read), or WhatsApp's reach-out lock
 * keeps the instance from the campaign's contacts left (REACHOUT_LOCKED: cold ones, or all).
 */
export type WaitingReason =
  | 'OUTSIDE_WINDOW'
  | 'DAILY_LIMIT'
  | 'LONG_PAUSE'
  | 'INSTANCE_DISCONNECTED'
  | 'INSTANCE_NOT_PAIRED'
  | 'REACHOUT_LOCKED';

/** How long after it ended a campaign's failed contacts may be retried (docs/API-RULES.md §4). */
export const RETRY_WINDOW_DAYS = 7;
const RETRY_WINDOW_MS = RETRY_WINDOW_DAYS * 24 * 60 * 60 * 1000;

@Entity({ name: 'campaigns' })
@Index('campaigns_gateway_config_idx', ['gatewayConfigId'])
// Descending and partial indexes TypeORM cannot describe: the migrations define them.
@Index('campaigns_company_created_idx', { synchronize: false })
@Index('campaigns_company_launched_idx', { synchronize: false })
@Index('campaigns_company_status_created_idx', { synchronize: false })
@Index('campaigns_instance_due_idx', { synchronize: false })
@Index('campaigns_scheduled_idx', { synchronize: false })
@Index('campaigns_automation_run_idx', { synchronize: false })
@Index('campaigns_pool_idx', { synchronize: false })
@Index('campaigns_active_pools_idx', { synchronize: false })
@Index('campaigns_listed_created_idx', { synchronize: false })
@Index('campaigns_listed_name_trgm_idx', { synchronize: false })
@Check(
  'campaigns_status_check',
  "status IN ('DRAFT','SCHEDULED','ACTIVE','PAUSED','COMPLETED','CANCELLED','FAILED')",
)
@Check('campaigns_type_check', "type IN ('TEXT','MEDIA','POLL')")
@Check('campaigns_sender_lost_cause_check', "sender_lost_cause IN ('GATEWAY', 'LOCKED')")
@Check('campaigns_interval_check', 'min_interval >= 0 AND min_interval <= max_interval')
@Check(
  'campaigns_long_pause_check',
  'long_pause_every > 0 AND long_pause_min >= 0 AND long_pause_min <= long_pause_max',
)
export class Campaign extends Timestamped {
  @PrimaryGeneratedColumn({ name: 'id' }) id!: number;
  @Column({ name: 'company_id', type: 'integer' })
  @ForeignKey('companies', { name: 'campaigns_company_id_fkey', onDelete: 'CASCADE' })
  companyId!: number;
  @Column({ name: 'name', type: 'varchar', length: 100 }) name!: string;
  @Column({ name: 'description', type: 'text', nullable: true }) description!: string | null;
  @Column({ name: 'status', type: 'varchar', length: 20 }) status!: CampaignStatus;
  @Column({ name: 'type', type: 'varchar', length: 10 }) type!: CampaignType;
  @Column({ name: 'is_test', type: 'boolean', default: false }) isTest!: boolean;
  @Column({ name: 'message_content', type: 'text', nullable: true }) messageContent!: string | null;
  @Column({ name: 'media_url', type: 'text', nullable: true }) mediaUrl!: string | null;
  @Column({ name: 'media_type', type: 'varchar', length: 20, nullable: true })
  mediaType!: CampaignMediaType | null;
  @Column({ name: 'file_name', type: 'varchar', length: 255, nullable: true }) fileName!:
    string | null;
  @Column({ name: 'caption', type: 'varchar', length: 1024, nullable: true }) caption!:
    string | null;
  @Column({ name: 'poll_data', type: 'jsonb', nullable: true }) pollData!: PollDefinition | null;
  /** A Cloud API campaign's approved template; null for a message campaign. */
  @Column({ name: 'template', type: 'jsonb', nullable: true }) template!: CampaignTemplate | null;
  @Column({ name: 'gateway_config_id', type: 'integer' }) gatewayConfigId!: number;
  @Column({ name: 'gateway_name', type: 'varchar', length: 100 }) gatewayName!: string;
  @Column({ name: 'gateway_url', type: 'varchar', length: 500 }) gatewayUrl!: string;
  @Column({ name: 'gateway_instance', type: 'varchar', length: 100 }) gatewayInstance!: string;
  @Column({ name: 'database_config_id', type: 'integer', nullable: true }) databaseConfigId!:
    number | null;
  @Column({ name: 'min_interval', type: 'integer' }) minInterval!: number;
  @Column({ name: 'max_interval', type: 'integer' }) maxInterval!: number;
  @Column({ name: 'notification_phone', type: 'varchar', length: 20, nullable: true })
  notificationPhone!: string | null;
  @Column({ name: 'scheduled_for', type: 'timestamptz', nullable: true })
  scheduledFor!: Date | null;
  @Column({ name: 'started_at', type: 'timestamptz', nullable: true }) startedAt!: Date | null;
  /** When it left DRAFT (or its creation, when not a draft): what the hourly creation limit counts. */
  @Column({ name: 'launched_at', type: 'timestamptz', nullable: true }) launchedAt!: Date | null;
  @Column({ name: 'paused_at', type: 'timestamptz', nullable: true }) pausedAt!: Date | null;
  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true }) completedAt!: Date | null;
  @Column({ name: 'failure_reason', type: 'text', nullable: true }) failureReason!: string | null;
  /** Why the engine paused it (our own repeated errors, a deactivated company); null when a person did. */
  @Column({ name: 'pause_reason', type: 'text', nullable: true }) pauseReason!: string | null;
  /** Our own errors in a row before a gateway call; the engine pauses the campaign at a few. */
  @Column({ name: 'internal_error_streak', type: 'integer', default: 0 })
  internalErrorStreak!: number;
  /** Ban signals (domain/ban-signals.ts): sends failed in a row; sends and refusals watched. */
  @Column({ name: 'send_failure_streak', type: 'integer', default: 0 }) sendFailureStreak!: number;
  @Column({ name: 'watched_sends', type: 'integer', default: 0 }) watchedSends!: number;
  @Column({ name: 'watched_refusals', type: 'integer', default: 0 }) watchedRefusals!: number;
  /** FAILED contacts whose send outcome stayed unknown (never found in the gateway's store). */
  @Column({ name: 'unknown_outcome_contacts', type: 'integer', default: 0 })
  unknownOutcomeContacts!: number;
  /** Contacts whose message WhatsApp reported delivered / read (receipts, with trackDelivery). */
  @Column({ name: 'delivered_contacts', type: 'integer', default: 0 }) deliveredContacts!: number;
  /** People who wrote within the reply window after their message (counted once each). */
  @Column({ name: 'replied_contacts', type: 'integer', default: 0 }) repliedContacts!: number;
  /** Contacts who talked with the number lately are sent first. */
  @Column({ name: 'warm_first', type: 'boolean', default: false }) warmFirst!: boolean;
  @Column({ name: 'read_contacts', type: 'integer', default: 0 }) readContacts!: number;
  /** People who answered this campaign's message with an opt-out word. */
  @Column({ name: 'opted_out_contacts', type: 'integer', default: 0 }) optedOutContacts!: number;
  @Column({ name: 'total_contacts', type: 'integer', default: 0 }) totalContacts!: number;
  @Column({ name: 'sent_contacts', type: 'integer', default: 0 }) sentContacts!: number;
  @Column({ name: 'failed_contacts', type: 'integer', default: 0 }) failedContacts!: number;
  @Column({ name: 'blocked_contacts_removed', type: 'integer', default: 0 })
  blockedContactsRemoved!: number;
  @Column({ name: 'progress_step', type: 'integer', default: 0 }) progressStep!: number;
  /** Not before: the campaign's own wait (window, day, long pause, retry); see sendsNoEarlierThan. */
  @Column({ name: 'next_send_at', type: 'timestamptz', nullable: true }) nextSendAt!: Date | null;
  /** The end of its pause after its instance's last message, read with the campaign. */
  @VirtualColumn({
    type: 'timestamptz',
    query: (alias) => `SELECT pause_ends_at(p.last_message_at, p.pause_draw, ${alias}.min_interval,
                         ${alias}.max_interval)
                         FROM instance_pacing p WHERE p.gateway_config_id = ${alias}.gateway_config_id`,
  })
  readonly pauseEndsAt?: Date | null;
  /** The engine's lease and disconnection clock: only its SQL writes them, so saves never touch them. */
  @SqlOwnedColumn('locked_until', 'timestamptz')
  readonly lockedUntil?: Date | null;
  @SqlOwnedColumn('locked_by', 'varchar', 100)
  readonly lockedBy?: string | null;
  @SqlOwnedColumn('disconnected_since', 'timestamptz')
  readonly disconnectedSince?: Date | null;
  /** Null: the company's default window, or always. */
  @Column({ name: 'sending_window', type: 'jsonb', nullable: true })
  sendingWindow!: SendingWindow | null;
  @Column({ name: 'long_pause_every', type: 'integer', nullable: true })
  longPauseEvery!: number | null;
  @Column({ name: 'long_pause_min', type: 'integer', nullable: true }) longPauseMin!: number | null;
  @Column({ name: 'long_pause_max', type: 'integer', nullable: true }) longPauseMax!: number | null;
  /** Written by the engine's SQL only; read for responses. */
  @Column({
    name: 'waiting_reason',
    type: 'varchar',
    length: 30,
    nullable: true,
    insert: false,
    update: false,
  })
  waitingReason!: WaitingReason | null;
  /** When the campaign last had its instance's turn (round robin); the engine's own. */
  @Column({
    name: 'last_turn_at',
    type: 'timestamptz',
    nullable: true,
    insert: false,
    update: false,
    select: false,
  })
  lastTurnAt!: Date | null;
  /**
   * A pool of senders (domain/sender-pool.ts): the pool's own row has its own id here, each of
   * its senders the pool's id; null for a campaign on one number.
   */
  @Column({ name: 'pool_id', type: 'integer', nullable: true })
  @ForeignKey('campaigns', { name: 'campaigns_pool_id_fkey', onDelete: 'CASCADE' })
  poolId!: number | null;
  /** A sender of a pool that could not go on, and why (its PENDING contacts went to the others). */
  @Column({ name: 'sender_lost_at', type: 'timestamptz', nullable: true })
  senderLostAt!: Date | null;
  @Column({ name: 'sender_lost_reason', type: 'varchar', length: 300, nullable: true })
  senderLostReason!: string | null;
  @Column({ name: 'sender_lost_cause', type: 'varchar', length: 10, nullable: true })
  senderLostCause!: SenderLoss | null;
  /** A pool's senders, when read with it (CampaignPools.withSenders); never stored. */
  senders?: PoolSender[];
  /** Set when the campaign carries one run of an automation; such campaigns stay out of the campaign API. */
  @Column({ name: 'automation_run_id', type: 'bigint', nullable: true }) automationRunId!:
    string | null;

  /** DRAFT when isDraft, SCHEDULED when scheduledFor is given, otherwise ACTIVE at once. */
  static create(props: NewCampaign, now: Date): Campaign {
    const campaign = new Campaign();
    Object.assign(campaign, definitionColumnsOf(props), NOTHING_DONE_YET, {
      companyId: props.companyId,
      status: 'DRAFT',
      createdAt: now,
      updatedAt: now,
    });
    if (!props.isDraft) {
      campaign.launch(now);
    }
    return campaign;
  }

  /** An edit is allowed while nothing was sent: a DRAFT or SCHEDULED campaign (409 otherwise). */
  checkEdit(): void {
    if (!nextCampaignStatus(this.status, 'edit')) {
      throw new CampaignDraftMoveNotAllowedError(this.status, 'edit');
    }
  }

  /** What it will send becomes `definition`; its status stays (checkEdit's refusal otherwise). */
  redefine(definition: CampaignDefinition, now: Date): void {
    this.checkEdit();
    // A scheduled test campaign made real counts against the hourly limit from now on, as
    // a campaign launched now would (its check ran with the edit's).
    const madeReal = this.status !== 'DRAFT' && this.isTest && definition.isTest === false;
    Object.assign(this, definitionColumnsOf(definition), { updatedAt: now });
    if (madeReal) {
      this.launchedAt = now;
    }
  }

  /** The status a launch leads to: SCHEDULED with a time, ACTIVE without (409 unless a DRAFT). */
  checkLaunch(): CampaignStatus {
    const next = nextCampaignStatus(this.status, launchActionOf(this));
    if (!next) {
      throw new CampaignDraftMoveNotAllowedError(this.status, 'launch');
    }
    return next;
  }

  /** The draft goes out as a campaign created that way would; it counts as launched now. */
  launch(now: Date): void {
    this.status = this.checkLaunch();
    this.launchedAt = now;
    this.updatedAt = now;
    if (this.status === 'ACTIVE') {
      this.startedAt = now;
      this.nextSendAt = now;
    }
  }

  /**
   * When an ACTIVE campaign may send again: after its own wait and its instance's pause,
   * whichever ends later (null when it is not ACTIVE).
   */
  sendsNoEarlierThan(): Date | null {
    if (this.status !== 'ACTIVE' || this.nextSendAt === null) {
      return null;
    }
    const pauseEndsAt = this.pauseEndsAt ?? null;
    return pauseEndsAt && pauseEndsAt > this.nextSendAt ? pauseEndsAt : this.nextSendAt;
  }

  /** Already queued messages may still go out; the engine re-reads the status before each send. */
  pause(now: Date): void {
    this.move('pause', now);
    this.pausedAt = now;
  }

  resume(now: Date): void {
    this.move('resume', now);
    this.pausedAt = null;
    this.pauseReason = null;
    this.internalErrorStreak = 0;
    this.watchBanSignalsAnew();
    this.nextSendAt = now;
  }

  /** Irreversible; statistics are kept and unprocessed contacts stay pending. */
  cancel(now: Date): void {
    this.move('cancel', now);
    this.completedAt = now;
    this.nextSendAt = null;
  }

  /**
   * Sends a finished campaign's retryable failures (and a failed campaign's unsent contacts)
   * again: COMPLETED or FAILED, ended at most RETRY_WINDOW_DAYS ago. The contacts and their
   * counters are moved by one statement (CampaignsRepository.retryFailed); a campaign is never
   * left ACTIVE with nothing to send (the service refuses that retry).
   */
  retry(now: Date): void {
    this.status = this.checkRetry(now);
    this.updatedAt = now;
    this.completedAt = null;
    this.failureReason = null;
    this.pausedAt = null;
    this.pauseReason = null;
    this.internalErrorStreak = 0;
    this.waitingReason = null;
    this.watchBanSignalsAnew();
    this.nextSendAt = now;
  }

  /** A person looked (resume, retry): the ban signals are watched over the next sends. */
  private watchBanSignalsAnew(): void {
    this.sendFailureStreak = 0;
    this.watchedSends = 0;
    this.watchedRefusals = 0;
  }

  /** The status a retry leads to now; refused (409) by the status or the age, changing nothing. */
  checkRetry(now: Date): CampaignStatus {
    const next = nextCampaignStatus(this.status, 'retry');
    if (!next) {
      throw new CampaignRetryNotAllowedError(this.status);
    }
    // No end time (never expected) cannot be placed inside the window: refused too.
    if (!this.completedAt || now.getTime() - this.completedAt.getTime() > RETRY_WINDOW_MS) {
      throw new CampaignRetryWindowPassedError(RETRY_WINDOW_DAYS);
    }
    return next;
  }

  /** The configuration it sends through, as it was when the campaign was created. */
  get gatewayConfig(): { id: number; name: string; url: string; instance: string } {
    return {
      id: this.gatewayConfigId,
      name: this.gatewayName,
      url: this.gatewayUrl,
      instance: this.gatewayInstance,
    };
  }

  private move(action: CampaignAction, now: Date): void {
    const next = nextCampaignStatus(this.status, action);
    if (!next) {
      throw new CampaignTransitionNotAllowedError(this.status, action);
    }
    this.status = next;
    this.updatedAt = now;
  }
}
