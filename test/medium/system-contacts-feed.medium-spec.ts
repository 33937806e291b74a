import type { Pool, PoolClient } from 'pg';
import { UnrecordedSentRepository } from '../../src/modules/campaigns/infrastructure/unrecorded-sent.repository';
import type { SentContact } from '../../src/modules/user-databases/domain/sent-contact';
import { openEngineDatabase, type EngineDatabase } from './support/engine-database';
import { insertCampaign, insertCompany, insertInstance } from './support/engine-rows';

/**
 * What the SYSTEM-contacts feed takes from campaign_contacts (SystemContactsFeed): every SENT
 * contact once, whatever else happens to it or to the feed meanwhile. The rules were written
 * for the flag the feed kept before it followed the commits' order, and hold for both.
 */
describe('the SYSTEM-contacts feed (medium: real PostgreSQL)', () => {
  let database: EngineDatabase;
  let sql: Pool;
  let feed: UnrecordedSentRepository;
  let company: number;

  beforeAll(async () => {
    database = await openEngineDatabase('system_contacts_feed');
    sql = database.sql;
    feed = new UnrecordedSentRepository();
  });

  afterAll(async () => {
    await database?.close();
  });

  beforeEach(async () => {
    await sql.query('DELETE FROM campaigns');
    await sql.query('DELETE FROM contact_senders');
    await sql.query(`UPDATE system_contacts_feed_position SET fed_xid = '0', fed_id = 0`);
    company = await insertCompany(sql);
  });

  function take(limit = 100): Promise<SentContact[]> {
    return database.inTransaction((tx) => feed.claimUnrecordedSent(tx, limit));
  }

  /** A campaign on an instance of its own, with `contacts` PENDING contacts; their ids. */
  async function campaignWith(contacts: number): Promise<{ id: number; contactIds: string[] }> {
    const id = await insertCampaign(sql, company, await insertInstance(sql, company), {
      contacts,
    });
    const { rows } = await sql.query<{ id: string }>(
      'SELECT id FROM campaign_contacts WHERE campaign_id = $1 ORDER BY id',
      [id],
    );
    return { id, contactIds: rows.map((row) => row.id) };
  }

  /**
   * Moves contacts as the engine's statements do: a SENT one stamped with its transaction
   * (SENT_STAMP), a FAILED one with a kind, as they must.
   */
  async function move(contactIds: string[], status: string, sentSecondsAgo = 0): Promise<void> {
    await sql.query(
      `UPDATE campaign_contacts
          SET status = $2::varchar,
              sent_at = CASE WHEN $2::varchar = 'SENT' THEN now() - make_interval(secs => $3::float) ELSE sent_at END,
              sent_xid = CASE WHEN $2::varchar = 'SENT' THEN pg_current_xact_id() ELSE sent_xid END,
              failed_at = CASE WHEN $2::varchar = 'FAILED' THEN now() END,
              failure_kind = CASE WHEN $2::varchar = 'FAILED' THEN 'not_delivered' END
        WHERE id = ANY ($1::bigint[])`,
      [contactIds, status, sentSecondsAgo],
    );
  }

  const phonesOf = (contacts: SentContact[]): string[] =>
    contacts.map((contact) => contact.phone).sort();

  async function phonesOfIds(contactIds: string[]): Promise<string[]> {
    const { rows } = await sql.query<{ phone: string }>(
      'SELECT phone_number AS phone FROM campaign_contacts WHERE id = ANY ($1::bigint[])',
      [contactIds],
    );
    return rows.map((row) => row.phone).sort();
  }

  it('takes each SENT contact once, with what the SYSTEM database records of it', async () => {
    const campaign = await campaignWith(3);
    await move(campaign.contactIds.slice(0, 2), 'SENT');

    const taken = await take();

    expect(phonesOf(taken)).toEqual(await phonesOfIds(campaign.contactIds.slice(0, 2)));
    expect(taken[0]).toEqual({
      companyId: company,
      campaignId: campaign.id,
      phone: expect.stringMatching(/^5511900\d{6}$/),
      name: expect.stringMatching(/^Contato \d$/),
      sentAt: expect.any(Date),
    });
    expect(await take()).toEqual([]);
  });

  it('leaves the contacts not sent: pending, in flight, in doubt or failed', async () => {
    const campaign = await campaignWith(4);
    // The first stays PENDING.
    const [, sending, uncertain, failed] = campaign.contactIds;
    await move([sending], 'SENDING');
    await move([uncertain], 'UNCERTAIN');
    await move([failed], 'FAILED');

    expect(await take()).toEqual([]);
  });

  it('leaves to the next claim what a claim that did not commit took (a crash mid-copy)', async () => {
    const campaign = await campaignWith(2);
    await move(campaign.contactIds, 'SENT');

    await expect(
      database.inTransaction(async (tx) => {
        expect(await feed.claimUnrecordedSent(tx, 100)).toHaveLength(2);
        throw new Error('the copy failed');
      }),
    ).rejects.toThrow('the copy failed');

    expect(phonesOf(await take())).toEqual(await phonesOfIds(campaign.contactIds));
    expect(await take()).toEqual([]);
  });

  it('copies every contact once when two feeds run at once', async () => {
    const campaign = await campaignWith(6);
    await move(campaign.contactIds, 'SENT');

    // Side by side, or one after the other when one feed finds the other at work.
    const [first, second] = await Promise.all([take(4), take(4)]);
    const rest = await take();

    expect(phonesOf([...first, ...second, ...rest])).toEqual(
      await phonesOfIds(campaign.contactIds),
    );
    expect(await take()).toEqual([]);
  });

  it('takes a contact refused before it was copied only once its message arrives after all', async () => {
    const campaign = await campaignWith(1);
    await move(campaign.contactIds, 'SENT');
    await move(campaign.contactIds, 'FAILED');
    expect(await take()).toEqual([]);

    await move(campaign.contactIds, 'SENT');
    expect(phonesOf(await take())).toEqual(await phonesOfIds(campaign.contactIds));
    expect(await take()).toEqual([]);
  });

  it('never passes a send whose transaction is still open: it takes it, and those after it, once it commits', async () => {
    const campaign = await campaignWith(2);
    const [older, newer] = campaign.contactIds;
    const open: PoolClient = await sql.connect();
    try {
      await open.query('BEGIN');
      await open.query(
        `UPDATE campaign_contacts SET status = 'SENT', sent_at = now(),
                sent_xid = pg_current_xact_id() WHERE id = $1`,
        [older],
      );
      // Sent and committed after it, by a later transaction.
      await move([newer], 'SENT');
      expect(await take()).toEqual([]);
      await open.query('COMMIT');
    } finally {
      open.release();
    }

    expect(phonesOf(await take())).toEqual(await phonesOfIds(campaign.contactIds));
    expect(await take()).toEqual([]);
  });

  it('starts over when the server counts transactions from below its position (a dump restored elsewhere)', async () => {
    const campaign = await campaignWith(2);
    await move(campaign.contactIds.slice(0, 1), 'SENT');
    expect(await take()).toHaveLength(1);
    await move(campaign.contactIds.slice(1), 'SENT');
    // As a restore into a new server leaves it: the copied position far ahead of the counter.
    await sql.query(`UPDATE system_contacts_feed_position SET fed_xid = '999999999999'`);

    expect(await take()).toEqual([]);
    expect(phonesOf(await take())).toEqual(await phonesOfIds(campaign.contactIds));
    expect(await take()).toEqual([]);
  });

  it('remembers, per person, the number that sent to them last', async () => {
    const earlier = await campaignWith(1);
    const later = await campaignWith(1);
    await sql.query('UPDATE campaign_contacts SET phone_number = $1 WHERE campaign_id = ANY ($2)', [
      '5511987654321',
      [earlier.id, later.id],
    ]);
    await move(later.contactIds, 'SENT', 10);
    await move(earlier.contactIds, 'SENT', 60);

    expect(await take()).toHaveLength(2);

    const { rows } = await sql.query(
      `SELECT s.gateway_config_id AS "instance", k.id AS "campaignId"
         FROM contact_senders s JOIN campaigns k ON k.gateway_config_id = s.gateway_config_id
        WHERE s.company_id = $1`,
      [company],
    );
    expect(rows).toEqual([{ instance: expect.any(Number), campaignId: later.id }]);
  });
});
