import { phones, waitForCampaign } from '../../support/campaigns';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { startCampaign, trackedConfig } from '../../support/gateway-events';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';

const FLOOD = 20_000;

/**
 * Receipts and replies are claimed per company in turn: a company whose customers flood the
 * queue takes its share of each batch, and another company's events go in the next batch.
 */
describe("a company's flood of gateway events", () => {
  const { t, fake } = useE2eFixture({ publicBaseUrl: true });

  it("does not hold back another company's receipt: it is applied while the flood still waits", async () => {
    const a = await TestCompany.register(t.http);
    const configA = await trackedConfig(a, fake);
    const sent = await startCampaign(a, configA.id, { contacts: phones(1, 9850) });
    await waitForCampaign(a, sent.id, (x) => x.status === 'COMPLETED');
    const { rows: contacts } = await db().query(
      `SELECT gateway_message_id AS key FROM campaign_contacts WHERE campaign_id = $1`,
      [sent.id],
    );
    const b = await TestCompany.register(t.http);
    const configB = await trackedConfig(b, fake);
    // B's customers write a lot (no opt-out word): queued before A's receipt arrives.
    await db().query(
      `INSERT INTO gateway_events (gateway_config_id, company_id, event, payload)
       SELECT $1, $2, 'messages.upsert', jsonb_build_object(
                'data', jsonb_build_object(
                  'key', jsonb_build_object('remoteJid', (5511900000000 + i) || '@s.whatsapp.net',
                                            'fromMe', false, 'id', 'FLOOD' || i),
                  'message', jsonb_build_object('conversation', 'Olá, tudo bem?')),
                'at', now())
         FROM generate_series(1, $3::int) AS i`,
      [configB.id, b.id, FLOOD],
    );

    expect(
      await fake.emit(configA.instance, 'messages.update', {
        keyId: contacts[0].key,
        fromMe: true,
        status: 'READ',
      }),
    ).toBe(200);

    // Read in one statement: how much of B's flood still waited when A's receipt was applied.
    const applied = await until(
      async () =>
        (
          await db().query(
            `SELECT cc.read_at,
                    (SELECT count(*)::int FROM gateway_events WHERE company_id = $2) AS flood
               FROM campaign_contacts cc WHERE cc.campaign_id = $1`,
            [sent.id, b.id],
          )
        ).rows[0],
      (row) => row.read_at !== null,
      3_000,
    );
    expect(applied.flood).toBeGreaterThan(FLOOD / 2);
    // And B's events are all applied too, in their turns.
    await until(
      () => countRows('gateway_events', 'company_id = $1', [b.id]),
      (n) => n === 0,
      120_000,
    );
  });
});
