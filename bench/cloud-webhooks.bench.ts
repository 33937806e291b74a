import { Agent, request } from 'node:http';
import { Client } from 'pg';
import { SecretBox } from '../src/common/crypto/secret-box';
import { FakeEvolutionApi } from '../test/support/fake-evolution-api';
import {
  messagesChange,
  signatureOf,
  status,
  webhookBody,
} from '../test/support/fake-graph-api/webhooks';
import { registerBenchCompany, trackedBenchConfig, waitFor } from './support/api';
import { defineBenchmark } from './support/benchmark';

/** Issue 26: Meta's batched status webhooks applied at this rate at least. */
export const APPLIED_STATUSES_PER_SECOND_TARGET = 10_000;

const STATUSES = Number(process.env.BENCH_CLOUD_STATUSES ?? 200_000);
/** Statuses without their contact's id and pricing, as this bench's first figures were taken. */
const PLAIN = process.env.BENCH_CLOUD_PLAIN === '1';
/** Statuses per webhook body (Meta batches them; 1,000 is about 220 KB, under the 1 MB route). */
const PER_BODY = 1_000;
const CONCURRENT_POSTS = 4;
const APP_SECRET = 'bench-app-secret';
const NUMBER = { phoneNumberId: '106540352240001', displayPhoneNumber: '15550000001' };
const WABA = '102290129340001';

/**
 * Meta's status webhooks for a Cloud API number with STATUSES sent campaign contacts: bodies of
 * PER_BODY `delivered` statuses, each a different contact's wamid, signed with the app secret
 * and posted CONCURRENT_POSTS at a time as fast as the service answers. Each status is what
 * Meta sends for the service's messages: its contact's id (biz_opaque_callback_data, set on
 * every send) and its pricing (charged, marketing). Measured: statuses stored a second (all
 * bodies answered 200), and statuses applied a second (from the first post to the campaign's
 * delivered_contacts counting them all).
 *
 * `npm run bench -- cloud-webhooks` (BENCH_CLOUD_STATUSES to send fewer; BENCH_CLOUD_PLAIN=1
 * for statuses without callback and pricing).
 */
export default defineBenchmark({
  name: 'cloud-webhooks',
  description: "Meta's status webhooks: statuses stored and applied per second",
  async run(context) {
    const fake = new FakeEvolutionApi();
    await fake.start();
    context.onCleanup(() => fake.stop());
    const service = await context.startApp({ env: { ROLE: 'all' } });
    const sql = new Client({ connectionString: (await context.database()).url });
    await sql.connect();
    context.onCleanup(() => sql.end());
    const company = await registerBenchCompany(service.baseUrl);
    const config = await trackedBenchConfig(service.baseUrl, company, fake, 'bench-cloud');
    const sealed = service.app
      .get(SecretBox)
      .encrypt(APP_SECRET, `gateway-config-app-secret:${company.id}`);
    await sql.query(
      `UPDATE gateway_configs SET provider = 'CLOUD_API', instance = $2, business_account_id = $3,
              api_version = 'v23.0', app_secret_encrypted = $4, webhook_verify_token = 'bench'
        WHERE id = $1`,
      [config.id, NUMBER.phoneNumberId, WABA, sealed],
    );
    context.log(`seeding ${STATUSES.toLocaleString('en')} sent campaign contacts`);
    const { campaignId, contactIds } = await seedSent(sql, company.id, config.id);

    const bodies = statusBodies(contactIds);
    const url = new URL(`${service.baseUrl}/api/gateway-events/${config.id}`);
    const began = performance.now();
    await postAll(url, bodies);
    const storedSeconds = (performance.now() - began) / 1000;
    await waitFor(
      'every status counted',
      async () =>
        (
          await sql.query<{ n: number }>(
            `SELECT delivered_contacts AS n FROM campaigns WHERE id = $1`,
            [campaignId],
          )
        ).rows[0].n >= STATUSES,
      600_000,
      50,
    );
    const appliedSeconds = (performance.now() - began) / 1000;
    const applied = STATUSES / appliedSeconds;
    const billed = await sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM campaign_contacts
        WHERE campaign_id = $1 AND billed_category = 'marketing'`,
      [campaignId],
    );
    return {
      rows: [
        {
          measure: 'statuses stored (all bodies answered 200)',
          perSecond: Math.round(STATUSES / storedSeconds),
        },
        { measure: 'statuses applied (counted on the campaign)', perSecond: Math.round(applied) },
      ],
      checks: [
        {
          name: `statuses applied/s (target ${APPLIED_STATUSES_PER_SECOND_TARGET})`,
          value: applied - APPLIED_STATUSES_PER_SECOND_TARGET,
          atLeast: 0,
        },
        {
          name: 'charged categories recorded − charged statuses',
          value: billed.rows[0].n - (PLAIN ? 0 : STATUSES),
          atLeast: 0,
        },
      ],
      notes: [
        `one application instance (ROLE=all); ${STATUSES.toLocaleString('en')} SENT contacts; bodies of ${PER_BODY} delivered statuses signed with the app secret, ${CONCURRENT_POSTS} posts in flight`,
        PLAIN
          ? 'plain statuses: no callback data, no pricing'
          : "each status with its contact's id (biz_opaque_callback_data) and pricing (charged, marketing)",
        'applied = statuses / (last status counted in delivered_contacts − first post)',
      ],
      details: { storedSeconds, appliedSeconds },
    };
  },
});

/** The webhook bodies, PER_BODY statuses each, every contact's message delivered once. */
function statusBodies(contactIds: Map<string, string>): string[] {
  return Array.from({ length: Math.ceil(STATUSES / PER_BODY) }, (_v, b) =>
    JSON.stringify(
      webhookBody(WABA, [
        messagesChange(NUMBER, {
          statuses: Array.from({ length: PER_BODY }, (_s, i) => {
            const wamid = `W${b * PER_BODY + i + 1}`;
            return status({
              wamid,
              status: 'delivered',
              ...(PLAIN
                ? {}
                : {
                    callbackData: contactIds.get(wamid),
                    pricing: { billable: true, category: 'marketing' },
                  }),
            });
          }),
        }),
      ]),
    ),
  );
}

/**
 * The campaign, and its contacts' ids by wamid: what the service sent as each message's
 * biz_opaque_callback_data, which Meta echoes in every status.
 */
async function seedSent(
  sql: Client,
  companyId: number,
  configId: number,
): Promise<{ campaignId: number; contactIds: Map<string, string> }> {
  const { rows } = await sql.query<{ id: number }>(
    `INSERT INTO campaigns (company_id, name, status, type, is_test, message_content, gateway_config_id,
            gateway_name, gateway_url, gateway_instance, min_interval, max_interval, total_contacts,
            sent_contacts, failed_contacts, blocked_contacts_removed, progress_step, created_at, updated_at,
            started_at, completed_at)
     VALUES ($1, 'bench cloud statuses', 'COMPLETED', 'TEXT', false, 'Olá', $2, 'bench', 'http://127.0.0.1',
             'bench-cloud', 0, 0, $3, $3, 0, 0, 10, now(), now(), now(), now())
     RETURNING id`,
    [companyId, configId, STATUSES],
  );
  await sql.query(
    `INSERT INTO campaign_contacts (campaign_id, company_id, phone_number, name, status, retry_count, sent_at,
            gateway_message_id)
     SELECT $1, $2, (5511900000000 + g)::text, '', 'SENT', 1, now(), 'W' || g
       FROM generate_series(1, $3) AS g`,
    [rows[0].id, companyId, STATUSES],
  );
  await sql.query(`ANALYZE campaign_contacts`);
  const contacts = await sql.query<{ id: string; wamid: string }>(
    `SELECT id::text, gateway_message_id AS wamid FROM campaign_contacts WHERE campaign_id = $1`,
    [rows[0].id],
  );
  return {
    campaignId: rows[0].id,
    contactIds: new Map(contacts.rows.map((contact) => [contact.wamid, contact.id])),
  };
}

/** Every body posted, CONCURRENT_POSTS at a time, signed; throws on any answer but 200. */
async function postAll(url: URL, bodies: string[]): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENT_POSTS });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const code = await post(agent, url, body);
      if (code !== 200) {
        throw new Error(`webhook answered ${code}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT_POSTS }, worker));
  agent.destroy();
}

function post(agent: Agent, url: URL, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'X-Hub-Signature-256': signatureOf(body, APP_SECRET),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
