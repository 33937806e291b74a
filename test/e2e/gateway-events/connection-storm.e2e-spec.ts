import { CONNECTION_COALESCE_MS } from '../../../src/modules/gateway-events/domain/connection-events';
import { phones, waitForCampaign } from '../../support/campaigns';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { startCampaign, trackedConfig } from '../../support/gateway-events';
import { TestCompany } from '../../support/test-app';
import { sleep, until } from '../../support/waiting';

/**
 * Every distinct value `read` showed, in order, sampled every 25 ms until stop(), and when each
 * was first seen (`seenAt`, ms).
 */
function watch(read: () => Promise<string>): { stop(): Promise<string[]>; seenAt: number[] } {
  const seen: string[] = [];
  const seenAt: number[] = [];
  let running = true;
  let failure: Error | null = null;
  const loop = (async () => {
    while (running) {
      let value: string;
      try {
        value = await read();
      } catch (error) {
        // Kept for stop(): a loop outliving a failed test must not reject with no one awaiting it.
        failure = error instanceof Error ? error : new Error(String(error));
        return;
      }
      if (seen.at(-1) !== value) {
        seen.push(value);
        seenAt.push(Date.now());
      }
      // A real span: the sampling rate, so that no version between two samples is missed.
      await sleep(25);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      if (failure) {
        throw failure;
      }
      return seen;
    },
    seenAt,
  };
}

/**
 * An instance reconnecting in a loop posts about 70 `connection.update` a second (recorded
 * against Evolution API v2.3.6: 4,541 in 65 s, all "connecting"). Each instance's events are
 * applied as one, at most once per coalescing window.
 */
describe('a storm of connection events', () => {
  const { t, fake } = useE2eFixture({ publicBaseUrl: true });

  /** An open instance with a campaign that sent once and waits a minute for its next send. */
  async function openInstanceWithCampaign(): Promise<{
    company: TestCompany;
    config: { id: number; instance: string };
    campaignId: number;
  }> {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    expect(
      await fake.emit(config.instance, 'connection.update', {
        instance: config.instance,
        state: 'open',
      }),
    ).toBe(200);
    await until(
      async () => (await company.get(`/api/gateway-configs/${config.id}`)).body.instanceState,
      (state) => state === 'open',
    );
    const campaign = await startCampaign(company, config.id, {
      contacts: phones(3, 9800 + config.id * 10),
      intervalMinSeconds: 60,
      intervalMaxSeconds: 60,
    });
    await waitForCampaign(company, campaign.id, (x) => x.sentContacts === 1);
    return { company, config, campaignId: campaign.id };
  }

  /**
   * `perSecond` events a second for `seconds`, each stamped when it is posted. A real time
   * span: the storm is a rate, and the coalescing window it meets is a time.
   */
  async function storm(
    instance: string,
    data: Record<string, unknown>,
    perSecond: number,
    seconds: number,
  ): Promise<Array<number | null>> {
    const started = Date.now();
    const posts: Array<Promise<number | null>> = [];
    for (let i = 0; i < perSecond * seconds; i += 1) {
      // A real span: each event at its time in the storm.
      await sleep(started + (i * 1000) / perSecond - Date.now());
      posts.push(fake.emit(instance, 'connection.update', { instance, ...data }));
    }
    return Promise.all(posts);
  }

  function watchConfig(id: number): ReturnType<typeof watch> {
    return watch(async () => {
      const { rows } = await db().query(
        `SELECT xmin::text AS version, instance_state FROM gateway_configs WHERE id = $1`,
        [id],
      );
      return `${rows[0].version} ${rows[0].instance_state}`;
    });
  }

  function watchHold(campaignId: number): ReturnType<typeof watch> {
    return watch(async () => {
      const { rows } = await db().query(
        `SELECT status, disconnected_since FROM campaigns WHERE id = $1`,
        [campaignId],
      );
      return JSON.stringify(rows[0]);
    });
  }

  /** The configuration's states as watched, each change once. */
  function statesOf(versions: string[]): string[] {
    return versions
      .map((version) => version.split(' ')[1])
      .filter((state, i, all) => i === 0 || all[i - 1] !== state);
  }

  it('takes 100 events a second for 10 s as one state change, with no backlog and no hold change', async () => {
    const { company, config, campaignId } = await openInstanceWithCampaign();
    const notices = await countRows('notices', 'company_id = $1', [company.id]);
    const outbox = await countRows('outbox_events', 'company_id = $1', [company.id]);
    const configVersions = watchConfig(config.id);
    const holds = watchHold(campaignId);

    const answers = await storm(
      config.instance,
      { state: 'connecting', statusReason: 200 },
      100,
      10,
    );
    expect(answers.filter((status) => status !== 200)).toEqual([]);
    await until(
      () => countRows('gateway_events', 'gateway_config_id = $1', [config.id]),
      (pending) => pending === 0,
      5_000,
    );

    const versions = await configVersions.stop();
    expect(statesOf(versions)).toEqual(['open', 'connecting']);
    // At most one write per coalescing window over the time the writes took (however long the
    // machine made the storm), never one per event. The +2: a write may be seen up to a sample
    // late, which shortens the span seen by less than a window.
    const writes = versions.length - 1;
    const span = configVersions.seenAt.at(-1)! - configVersions.seenAt[1];
    expect(writes).toBeLessThanOrEqual(Math.floor(span / CONNECTION_COALESCE_MS) + 2);
    expect(writes).toBeLessThan(answers.length / 50);
    expect(await holds.stop()).toHaveLength(1);
    expect(await countRows('notices', 'company_id = $1', [company.id])).toBe(notices);
    expect(await countRows('outbox_events', 'company_id = $1', [company.id])).toBe(outbox);
    expect(
      (await company.get(`/api/gateway-configs/${config.id}`).expect(200)).body.instanceState,
    ).toBe('connecting');
  });

  it('holds the campaigns once for a storm of "close", and sends nothing meanwhile', async () => {
    const { config, campaignId } = await openInstanceWithCampaign();
    const sent = fake.sent.filter((s) => s.instance === config.instance).length;
    const configVersions = watchConfig(config.id);
    const holds = watchHold(campaignId);

    const answers = await storm(config.instance, { state: 'close', statusReason: 428 }, 100, 3);
    expect(answers.filter((status) => status !== 200)).toEqual([]);
    await until(
      () => countRows('gateway_events', 'gateway_config_id = $1', [config.id]),
      (pending) => pending === 0,
      5_000,
    );

    expect(statesOf(await configVersions.stop())).toEqual(['open', 'close']);
    const held = (await holds.stop()).map((row) => JSON.parse(row));
    expect(held).toHaveLength(2);
    expect(held[0]).toMatchObject({ status: 'ACTIVE', disconnected_since: null });
    expect(held[1]).toMatchObject({ status: 'ACTIVE', disconnected_since: expect.any(String) });
    expect(fake.sent.filter((s) => s.instance === config.instance)).toHaveLength(sent);
  });
});
