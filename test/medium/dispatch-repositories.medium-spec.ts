import type { Pool } from 'pg';
import { pauseAfterDelivery } from '../../src/modules/campaigns/domain/delivery-rules';
import { watchedCountsOfFailure } from '../../src/modules/campaigns/domain/watched-counts';
import { DispatchClaimRepository } from '../../src/modules/campaigns/infrastructure/dispatch-claim.repository';
import { LISTED_DUE_INSTANCES } from '../../src/modules/campaigns/infrastructure/dispatch-claim.sql';
import { DispatchLeaseRepository } from '../../src/modules/campaigns/infrastructure/dispatch-lease.repository';
import { DispatchMonitoringRepository } from '../../src/modules/campaigns/infrastructure/dispatch-monitoring.repository';
import { DispatchOutcomeRepository } from '../../src/modules/campaigns/infrastructure/dispatch-outcome.repository';
import { PgInstancePacing } from '../../src/modules/gateway/infrastructure/instance-pacing.repository';
import { ENGINE_CONFIG, EngineDatabase, openEngineDatabase } from './support/engine-database';
import {
  campaignState,
  contactStatuses,
  deliveryOf,
  insertCampaign,
  insertCompany,
  insertInstance,
  pacingState,
} from './support/engine-rows';

const WORKER = 'medium-worker';
const OTHER = 'medium-other';
const LEASE_SECONDS = 60;

/**
 * The engine's statements against real PostgreSQL, one at a time, with the rows set up in SQL:
 * what each one claims, writes and refuses. Every test starts from an empty engine (campaigns
 * and instances deleted), since a claim takes any due campaign of the database.
 */
describe('dispatch repositories (medium: real PostgreSQL)', () => {
  let database: EngineDatabase;
  let sql: Pool;
  let claims: DispatchClaimRepository;
  let outcomes: DispatchOutcomeRepository;
  let leases: DispatchLeaseRepository;
  let monitoring: DispatchMonitoringRepository;
  let pacing: PgInstancePacing;
  let company: number;

  beforeAll(async () => {
    database = await openEngineDatabase('dispatch_repositories');
    sql = database.sql;
    claims = new DispatchClaimRepository(database.dataSource, ENGINE_CONFIG);
    outcomes = new DispatchOutcomeRepository(database.dataSource, ENGINE_CONFIG);
    leases = new DispatchLeaseRepository(database.dataSource);
    monitoring = new DispatchMonitoringRepository(database.dataSource);
    pacing = new PgInstancePacing(database.dataSource, ENGINE_CONFIG);
  });

  afterAll(async () => {
    await database?.close();
  });

  beforeEach(async () => {
    await sql.query('DELETE FROM campaigns');
    await sql.query('DELETE FROM gateway_configs');
    company = await insertCompany(sql);
  });

  function claim(worker = WORKER, inFlight: number[] = []) {
    return claims.claimDue(worker, 128, LEASE_SECONDS, inFlight);
  }

  /** A leased campaign whose first contact is SENDING, as the begin statement leaves it. */
  async function begun(instance: number, worker = WORKER, contacts = 3) {
    const id = await insertCampaign(sql, company, instance, { lockedBy: worker, contacts });
    const { campaign, contact } = await claims.beginLeasedSend(id, worker, LEASE_SECONDS);
    return { id, campaign: campaign!, contact: contact! };
  }

  describe('the claim', () => {
    it('leases one due campaign per instance, the one whose turn was longest ago, and holds the instance', async () => {
      const instance = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
      await insertCampaign(sql, company, instance, { lastTurnSecondsAgo: 5 });
      const oldestTurn = await insertCampaign(sql, company, instance, { lastTurnSecondsAgo: 50 });

      const claimed = await claim();

      expect(claimed).toEqual([
        expect.objectContaining({
          id: oldestTurn,
          takenOver: false,
          instanceHeld: true,
          quota: null,
        }),
      ]);
      expect(await pacingState(sql, instance)).toMatchObject({ heldBy: WORKER });
      expect(await campaignState(sql, oldestTurn)).toMatchObject({ lockedBy: WORKER });
    });

    it('skips instances another sender holds, instances still in their pause, and campaigns not due', async () => {
      const held = await insertInstance(sql, company, { heldBy: OTHER });
      const inPause = await insertInstance(sql, company, { lastMessageSecondsAgo: 0.2 });
      const free = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
      await insertCampaign(sql, company, held);
      await insertCampaign(sql, company, inPause, { minInterval: 5, maxInterval: 5 });
      await insertCampaign(sql, company, free, { dueInSeconds: 30 });

      expect(await claim()).toEqual([]);
    });

    it('begins the first send of each campaign it may send at once: its contact SENDING, committed', async () => {
      const instance = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
      const id = await insertCampaign(sql, company, instance);

      const [claimed] = await claim();

      expect(claimed.firstSend).toEqual({
        campaign: expect.objectContaining({ id, lockedBy: WORKER, status: 'ACTIVE' }),
        contact: expect.objectContaining({ attempts: 1, blocked: false }),
      });
      expect(await contactStatuses(sql, id)).toEqual(['SENDING', 'PENDING', 'PENDING']);
    });

    it.each([
      [
        'its lease was taken over (interrupted sends come first)',
        { lockedBy: OTHER, lockedForSeconds: -1 },
      ],
      ['it has a sending window to check', { window: true }],
      ['its instance is not held (its day is full)', { dayFull: true }],
    ])('begins no send when %s', async (_when, setup) => {
      const instance = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
      const id = await insertCampaign(sql, company, instance, {
        lockedBy: 'lockedBy' in setup ? setup.lockedBy : null,
        lockedForSeconds: 'lockedForSeconds' in setup ? setup.lockedForSeconds : undefined,
      });
      if ('window' in setup) {
        await sql.query(
          `UPDATE campaigns SET sending_window = '{"days":[1,2,3,4,5,6,7],"start":"00:00","end":"23:59"}' WHERE id = $1`,
          [id],
        );
      }
      if ('dayFull' in setup) {
        await sql.query(`UPDATE gateway_configs SET daily_limit = 1 WHERE id = $1`, [instance]);
        await sql.query(
          `UPDATE instance_pacing SET day = (now() AT TIME ZONE 'America/Sao_Paulo')::date, sent_on_day = 1
            WHERE gateway_config_id = $1`,
          [instance],
        );
      }

      const [claimed] = await claim();

      expect(claimed).toMatchObject({ id, firstSend: null });
      expect(await contactStatuses(sql, id)).toEqual(['PENDING', 'PENDING', 'PENDING']);
    });

    it('takes over a lease that ran out, saying so', async () => {
      const instance = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
      const id = await insertCampaign(sql, company, instance, {
        lockedBy: OTHER,
        lockedForSeconds: -1,
      });

      expect(await claim()).toEqual([expect.objectContaining({ id, takenOver: true })]);
      expect(await campaignState(sql, id)).toMatchObject({ lockedBy: WORKER });
    });

    it('leaves the campaigns this worker still has in flight', async () => {
      const instance = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
      const id = await insertCampaign(sql, company, instance);

      expect(await claim(WORKER, [id])).toEqual([]);
    });

    it('claims alike when more instances are due than it looks up one by one (one pass over the campaigns)', async () => {
      const oldestTurns: number[] = [];
      for (let n = 0; n <= LISTED_DUE_INSTANCES; n += 1) {
        const instance = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
        await insertCampaign(sql, company, instance, { lastTurnSecondsAgo: 5 });
        oldestTurns.push(await insertCampaign(sql, company, instance, { lastTurnSecondsAgo: 50 }));
      }
      const inFlight = oldestTurns[0];
      const held = await insertInstance(sql, company, { heldBy: OTHER });
      await insertCampaign(sql, company, held);

      const claimed = await claim(WORKER, [inFlight]);

      // The instance whose oldest turn is in flight gives its other campaign.
      expect(claimed).toHaveLength(LISTED_DUE_INSTANCES + 1);
      const ids = new Set(claimed.map((c) => c.id));
      expect(oldestTurns.filter((id) => ids.has(id))).toHaveLength(LISTED_DUE_INSTANCES);
      expect(ids.has(inFlight)).toBe(false);
      expect(claimed.every((c) => c.instanceHeld && c.firstSend !== null)).toBe(true);
      expect(await pacingState(sql, held)).toMatchObject({ heldBy: OTHER });
    });

    it('finds an instance by the pacing row its first ACTIVE campaign gave it, and holds it', async () => {
      const instance = await insertInstance(sql, company);
      const id = await insertCampaign(sql, company, instance);

      expect(await claim()).toEqual([expect.objectContaining({ id, instanceHeld: true })]);
      expect(await pacingState(sql, instance)).toMatchObject({ heldBy: WORKER });
    });

    it('skips an instance while the pause its last message drew lasts for the campaign, and claims it after', async () => {
      const instance = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
      const id = await insertCampaign(sql, company, instance, {
        minInterval: 1,
        maxInterval: 3601,
      });
      // Halfway through [1 s, 3601 s]: this campaign waits 1801 s after the last message.
      await sql.query(`UPDATE instance_pacing SET pause_draw = 0.5 WHERE gateway_config_id = $1`, [
        instance,
      ]);
      expect(await claim()).toEqual([]);

      await sql.query(`UPDATE instance_pacing SET pause_draw = 0 WHERE gateway_config_id = $1`, [
        instance,
      ]);
      expect(await claim()).toEqual([expect.objectContaining({ id })]);
    });

    it("answers the instance's quota of the day, and does not hold an instance whose day is full", async () => {
      const limited = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
      const full = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
      await sql.query(`UPDATE gateway_configs SET daily_limit = 5 WHERE id = ANY($1)`, [
        [limited, full],
      ]);
      await sql.query(
        `UPDATE instance_pacing SET day = (now() AT TIME ZONE 'America/Sao_Paulo')::date,
                sent_on_day = CASE WHEN gateway_config_id = $1 THEN 2 ELSE 5 END`,
        [limited],
      );
      const onLimited = await insertCampaign(sql, company, limited);
      const onFull = await insertCampaign(sql, company, full);

      const claimed = await claim();

      expect(claimed).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ id: onLimited, instanceHeld: true, quota: 3 }),
          expect.objectContaining({ id: onFull, instanceHeld: false }),
        ]),
      );
      expect(await pacingState(sql, full)).toMatchObject({ heldBy: null });
    });
  });

  describe('the start of a send', () => {
    it('marks the next contact SENDING, committed for every other connection before the gateway call', async () => {
      const instance = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
      const { id, contact, campaign } = await begun(instance);

      expect(campaign).toMatchObject({ id, lockedBy: WORKER, watchedSends: 0 });
      expect(contact).toMatchObject({ attempts: 1, blocked: false });
      expect(await contactStatuses(sql, id)).toEqual(['SENDING', 'PENDING', 'PENDING']);
    });

    it('takes nothing for a worker that does not hold the lease', async () => {
      const instance = await insertInstance(sql, company);
      const id = await insertCampaign(sql, company, instance, { lockedBy: OTHER });

      expect(await claims.beginLeasedSend(id, WORKER, LEASE_SECONDS)).toEqual({
        campaign: null,
        contact: null,
      });
      expect(await contactStatuses(sql, id)).toEqual(['PENDING', 'PENDING', 'PENDING']);
    });
  });

  describe('a delivery', () => {
    it("records the contact SENT and ends the turn: lease and instance given back, the message counted, the instance's pause begun", async () => {
      const instance = await insertInstance(sql, company, { heldBy: WORKER });
      const id = await insertCampaign(sql, company, instance, {
        lockedBy: WORKER,
        minInterval: 3,
        maxInterval: 5,
      });
      const { contact } = await claims.beginLeasedSend(id, WORKER, LEASE_SECONDS);

      const recorded = await outcomes.recordDelivered(null, id, WORKER, deliveryOf(contact!.id));

      expect(recorded).toMatchObject({ leaseHeld: false, contactMoved: true, sentContacts: 1 });
      expect(await contactStatuses(sql, id)).toEqual(['SENT', 'PENDING', 'PENDING']);
      const state = await campaignState(sql, id);
      expect(state).toMatchObject({ lockedBy: null, waitingReason: null, watchedSends: 1 });
      // The ordinary pause is the instance's: the campaign row keeps its next send.
      expect(state.nextSendInSeconds).toBeLessThan(0);
      const pacing = await pacingState(sql, instance);
      expect(pacing).toMatchObject({ heldBy: null, sentOnDay: 1, pauseDraw: 0.5 });
      expect(pacing.quietForSeconds).toBeLessThan(1);
      // Its own pause at that point of [3 s, 5 s]: 4 s after the message.
      const readyIn = ((pacing.readyAt as Date).getTime() - Date.now()) / 1000;
      expect(readyIn).toBeGreaterThan(3);
      expect(readyIn).toBeLessThanOrEqual(4);
    });

    it.each([
      ['while the turn goes on', { pauseSeconds: 0, endsTurn: false }],
      ['when a progress event is due, for the transaction that writes it', { milestoneCount: 1 }],
    ])('keeps the lease and the instance %s', async (_when, overrides) => {
      const instance = await insertInstance(sql, company, { heldBy: WORKER });
      const { id, contact } = await begun(instance);

      const recorded = await outcomes.recordDelivered(
        null,
        id,
        WORKER,
        deliveryOf(contact.id, overrides),
      );

      expect(recorded).toMatchObject({ leaseHeld: true, contactMoved: true, sentContacts: 1 });
      expect(await pacingState(sql, instance)).toMatchObject({ heldBy: WORKER, sentOnDay: 0 });
    });

    it('stores the long pause the domain decided on', async () => {
      const instance = await insertInstance(sql, company, { heldBy: WORKER });
      const id = await insertCampaign(sql, company, instance, {
        lockedBy: WORKER,
        longPauseEvery: 2,
        sentContacts: 1,
      });
      const { campaign, contact } = await claims.beginLeasedSend(id, WORKER, LEASE_SECONDS);
      const pause = pauseAfterDelivery(campaign!, { pauseSeconds: 2, longPauseSeconds: 45 });

      await outcomes.recordDelivered(null, id, WORKER, deliveryOf(contact!.id, pause));

      const state = await campaignState(sql, id);
      expect(state).toMatchObject({ waitingReason: 'LONG_PAUSE', sentContacts: 2 });
      expect(state.nextSendInSeconds).toBeGreaterThan(40);
    });

    it("by a worker that lost the lease changes nothing but the contact's own outcome", async () => {
      const instance = await insertInstance(sql, company, { heldBy: OTHER });
      const { id, contact } = await begun(instance);
      await sql.query(
        `UPDATE campaigns SET locked_by = $2, next_send_at = now() + interval '1 hour' WHERE id = $1`,
        [id, OTHER],
      );

      const recorded = await outcomes.recordDelivered(null, id, WORKER, deliveryOf(contact.id));

      expect(recorded).toMatchObject({ leaseHeld: false, contactMoved: true, sentContacts: 1 });
      const state = await campaignState(sql, id);
      expect(state).toMatchObject({ lockedBy: OTHER });
      expect(state.nextSendInSeconds).toBeGreaterThan(3000);
      expect(await pacingState(sql, instance)).toMatchObject({ heldBy: OTHER });
    });
  });

  describe('a failure', () => {
    it('counts what the domain says it adds to the ban-signal counters, once', async () => {
      const instance = await insertInstance(sql, company, { heldBy: WORKER });
      const { id, contact, campaign } = await begun(instance);
      const failure = {
        reason: 'número não está no WhatsApp',
        kind: 'refused_number' as const,
        counts: watchedCountsOfFailure('refused', campaign.watchedSends, 50),
      };

      const first = await database.inTransaction((tx) =>
        outcomes.failContact(tx, id, contact.id, failure),
      );
      const again = await database.inTransaction((tx) =>
        outcomes.failContact(tx, id, contact.id, failure),
      );

      expect(first).toMatchObject({
        contactMoved: true,
        failedContacts: 1,
        sendFailureStreak: 1,
        watchedSends: 1,
        watchedRefusals: 1,
      });
      expect(again).toMatchObject({ contactMoved: false, failedContacts: 1, sendFailureStreak: 1 });
    });

    it('a lost lease: rescheduling changes nothing and says so', async () => {
      const instance = await insertInstance(sql, company);
      const id = await insertCampaign(sql, company, instance, { lockedBy: OTHER });

      const result = await database.inTransaction((tx) =>
        leases.rescheduleAndRelease(tx, id, WORKER, { nextSendInMs: 5_000, cause: 'internal' }),
      );

      expect(result.leaseHeld).toBe(false);
      expect(await campaignState(sql, id)).toMatchObject({ lockedBy: OTHER });
    });
  });

  describe('giving a lease back', () => {
    it('a deferral gives back the lease and the hold the claim took, and says why the campaign waits', async () => {
      const instance = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
      await insertCampaign(sql, company, instance);
      const [claimed] = await claim();
      const until = new Date(Date.now() + 3_600_000);

      await leases.defer(claimed.id, WORKER, {
        until,
        reason: 'OUTSIDE_WINDOW',
        instanceHeld: true,
      });

      const state = await campaignState(sql, claimed.id);
      expect(state).toMatchObject({ lockedBy: null, waitingReason: 'OUTSIDE_WINDOW' });
      expect(state.nextSendInSeconds).toBeGreaterThan(3500);
      expect(await pacingState(sql, instance)).toMatchObject({ heldBy: null });
    });

    it('a deferral leaves a hold the claim did not take', async () => {
      const instance = await insertInstance(sql, company, { heldBy: WORKER });
      const id = await insertCampaign(sql, company, instance, { lockedBy: WORKER });

      await leases.defer(id, WORKER, { until: new Date(), reason: null, instanceHeld: false });

      expect(await pacingState(sql, instance)).toMatchObject({ heldBy: WORKER });
      expect(await campaignState(sql, id)).toMatchObject({ lockedBy: null });
    });

    it('a release moves the next send only for the worker that holds the lease', async () => {
      const instance = await insertInstance(sql, company);
      const mine = await insertCampaign(sql, company, instance, { lockedBy: WORKER });
      const theirs = await insertCampaign(sql, company, instance, { lockedBy: OTHER });
      const later = new Date(Date.now() + 600_000);

      await leases.release(null, mine, WORKER, later);
      await leases.release(null, theirs, WORKER, later);

      expect(await campaignState(sql, mine)).toMatchObject({ lockedBy: null });
      expect((await campaignState(sql, mine)).nextSendInSeconds).toBeGreaterThan(500);
      expect(await campaignState(sql, theirs)).toMatchObject({ lockedBy: OTHER });
    });
  });

  describe("an instance's ready time (kept by triggers)", () => {
    async function dueInSeconds(instance: number): Promise<number | null> {
      const { readyAt } = await pacingState(sql, instance);
      return readyAt === null
        ? null
        : Math.round(((readyAt as Date).getTime() - Date.now()) / 1000);
    }

    it('is the earliest next send of its ACTIVE campaigns past their pauses, and null once none is ACTIVE', async () => {
      const instance = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
      const later = await insertCampaign(sql, company, instance, { dueInSeconds: 600 });
      expect(await dueInSeconds(instance)).toBe(600);

      const sooner = await insertCampaign(sql, company, instance, { dueInSeconds: 60 });
      expect(await dueInSeconds(instance)).toBe(60);

      await sql.query(`UPDATE campaigns SET status = 'PAUSED' WHERE id = $1`, [sooner]);
      expect(await dueInSeconds(instance)).toBe(600);

      await sql.query(
        `UPDATE campaigns SET next_send_at = now() + interval '120 seconds' WHERE id = $1`,
        [later],
      );
      expect(await dueInSeconds(instance)).toBe(120);

      await sql.query(`UPDATE campaigns SET status = 'COMPLETED' WHERE id = $1`, [later]);
      expect(await dueInSeconds(instance)).toBeNull();
    });

    it('follows a deleted campaign', async () => {
      const instance = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
      const id = await insertCampaign(sql, company, instance, { dueInSeconds: 60 });

      await sql.query(`DELETE FROM campaigns WHERE id = $1`, [id]);

      expect(await dueInSeconds(instance)).toBeNull();
    });
  });

  describe("a capped number's recipients (counted by a trigger)", () => {
    /** Counts `messages` more for the instance's day, as a turn's release does. */
    async function countTurn(instance: number, messages: number): Promise<void> {
      await sql.query(
        `UPDATE instance_pacing SET day = current_date, sent_on_day = sent_on_day + $2
          WHERE gateway_config_id = $1`,
        [instance, messages],
      );
    }

    async function recipients(instance: number): Promise<number> {
      const { rows } = await sql.query<{ n: number }>(
        `SELECT coalesce(sum(recipients), 0)::int AS n FROM instance_recipients
          WHERE gateway_config_id = $1`,
        [instance],
      );
      return rows[0].n;
    }

    async function makeCloud(instance: number, tier: string | null): Promise<void> {
      await sql.query(
        `UPDATE gateway_configs SET provider = 'CLOUD_API', messaging_limit_tier = $2,
                business_account_id = 'waba', api_version = 'v23.0', app_secret_encrypted = 'x',
                webhook_verify_token = 'x'
          WHERE id = $1`,
        [instance, tier],
      );
    }

    it('counts them only while the number has a tier with a cap, whenever the tier was set', async () => {
      const instance = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
      await countTurn(instance, 2);
      expect(await recipients(instance)).toBe(0);

      await makeCloud(instance, 'TIER_250');
      await countTurn(instance, 3);
      expect(await recipients(instance)).toBe(3);

      await makeCloud(instance, 'TIER_UNLIMITED');
      await countTurn(instance, 4);
      expect(await recipients(instance)).toBe(3);
    });

    it('knows the cap of a number tiered before its pacing row was written', async () => {
      const instance = await insertInstance(sql, company);
      await makeCloud(instance, 'TIER_1K');
      await sql.query(
        `INSERT INTO instance_pacing (gateway_config_id, company_id) VALUES ($1, $2)`,
        [instance, company],
      );

      await countTurn(instance, 5);

      expect(await recipients(instance)).toBe(5);
    });
  });
  describe('holding an instance outside the claim (InstancePacing.hold)', () => {
    it("waits for the sender's own pause at the point the last message's pause was drawn", async () => {
      const instance = await insertInstance(sql, company, { lastMessageSecondsAgo: 10 });
      // Halfway through [1 s, 61 s]: this sender waits 31 s after the last message.
      await sql.query(`UPDATE instance_pacing SET pause_draw = 0.5 WHERE gateway_config_id = $1`, [
        instance,
      ]);

      const refused = await pacing.hold(instance, WORKER, LEASE_SECONDS, {
        minSeconds: 1,
        maxSeconds: 61,
      });
      const held = await pacing.hold(instance, WORKER, LEASE_SECONDS, {
        minSeconds: 1,
        maxSeconds: 11,
      });

      expect(refused).toMatchObject({ held: false, reason: 'BUSY' });
      if (!refused.held) {
        const waitsSeconds = (refused.retryAt.getTime() - Date.now()) / 1000;
        expect(waitsSeconds).toBeGreaterThan(19);
        expect(waitsSeconds).toBeLessThanOrEqual(21);
      }
      expect(held).toMatchObject({ held: true });
      expect(await pacingState(sql, instance)).toMatchObject({ heldBy: WORKER });
    });
  });

  describe("the loop's next look", () => {
    it('waits for the end of the instance pause rather than answering "now"', async () => {
      const instance = await insertInstance(sql, company, { lastMessageSecondsAgo: 0 });
      await insertCampaign(sql, company, instance, { minInterval: 3, maxInterval: 3 });

      const ms = await monitoring.msUntilNextDue();

      expect(ms).toBeGreaterThan(2_000);
      expect(ms).toBeLessThanOrEqual(3_000);
    });
  });
});
