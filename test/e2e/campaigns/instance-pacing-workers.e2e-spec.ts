import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { connectedInstance, phones, waitForCampaign } from '../../support/campaigns';
import { useE2eFixture } from '../../support/e2e-fixture';
import { FakeEvolutionApi, FakeSentMessage } from '../../support/fake-evolution-api';
import { TestCompany } from '../../support/test-app';
import { WorkerProcess } from '../../support/worker-process';

const ENCRYPTION_KEY = 'instance-pacing-workers-e2e-key';

/**
 * How much shorter than the pause a gap between two arrivals at the fake gateway may look.
 * By the database clock the engine never sends early: the next holder takes the instance only
 * once `now() >= last_message_at + pause`, and `last_message_at` is written after the gateway
 * answered the previous message, so the true gap between two arrivals is the pause plus that
 * message's answer and bookkeeping. What can make it look shorter is only the measurement: the
 * fake stamps a request when this (Jest) process reads it, so an event loop busy for a moment
 * (the API app, GC, the polls below) stamps one message late and the next gap short by as much;
 * `Date` also truncates to the millisecond. 50 ms covers that; a pacing fault (two workers
 * holding the instance at once, a sender not waiting its pause) shows as a gap short by far
 * more, most of a second with these pauses.
 */
const CLOCK_TOLERANCE_MS = 50;

/** Each campaign: its pause in whole seconds (the API's unit) and its contacts. */
const CAMPAIGNS = [
  { min: 1, max: 2, firstPhone: 100 },
  { min: 1, max: 2, firstPhone: 200 },
  { min: 2, max: 2, firstPhone: 300 },
];
const CONTACTS_PER_CAMPAIGN = 8;

/** The local TCP ports of `pid`'s sockets connected to `serverPort` (Linux /proc). */
function portsToward(pid: number, serverPort: number): Set<number> {
  const byInode = new Map<string, { local: number; remote: number }>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      if (fields.length >= 10) {
        const port = (address: string): number => parseInt(address.split(':').pop() ?? '', 16);
        byInode.set(fields[9], { local: port(fields[1]), remote: port(fields[2]) });
      }
    }
  }
  const ports = new Set<number>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return ports;
  }
  for (const fd of fds) {
    let link: string;
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    const socket = byInode.get(/^socket:\[(\d+)\]$/.exec(link)?.[1] ?? '');
    if (socket && socket.remote === serverPort) {
      ports.add(socket.local);
    }
  }
  return ports;
}

/**
 * Which worker process sent each message, told by the TCP connection it came on: the fake
 * records the caller's port, and the worker's open sockets are read from /proc while the
 * connection is still kept alive (the service keeps an idle one 4 s; this looks every 100 ms).
 */
function followSenders(
  fake: FakeEvolutionApi,
  instance: string,
  workers: WorkerProcess[],
): { senders: Map<FakeSentMessage, number>; stop(): void } {
  const senders = new Map<FakeSentMessage, number>();
  const serverPort = Number(new URL(fake.url).port);
  const look = (): void => {
    const unknown = fake.sent.filter((s) => s.instance === instance && !senders.has(s));
    if (unknown.length === 0) {
      return;
    }
    const portsOf = workers.map((w) => ({
      pid: w.child.pid as number,
      ports: portsToward(w.child.pid as number, serverPort),
    }));
    for (const message of unknown) {
      const owner = portsOf.find((w) => w.ports.has(message.remotePort ?? -1));
      if (owner) {
        senders.set(message, owner.pid);
      }
    }
  };
  const timer = setInterval(look, 100);
  return {
    senders,
    stop: () => {
      clearInterval(timer);
      look();
    },
  };
}

/**
 * The pace of one WhatsApp number across worker processes: the API runs here (ROLE=api, no
 * dispatch) on a database of its own; two real service processes (src/main.ts, ROLE=worker)
 * send three campaigns of one gateway instance. The instance's pace lives in PostgreSQL
 * (instance_pacing), so whichever process sends, the number never sends faster than the pause.
 */
describe('one instance paced across two worker processes', () => {
  const { t, fake, pool, startWorker } = useE2eFixture({
    database: 'instance_pacing_workers',
    role: 'api',
    env: { ENCRYPTION_KEY },
    noRefusals: true,
  });

  it('never sends two messages of the instance closer than the pause, whichever process sends them', async () => {
    const company = await TestCompany.register(t.http);
    const gateway = connectedInstance(fake);
    const saved = await company
      .post('/api/gateway-configs', {
        name: 'Loja',
        url: fake.url,
        apiKey: gateway.apiKey,
        instance: gateway.instance,
      })
      .expect(201);
    // Both processes run before the campaigns exist, so that they compete from the first message.
    const workers = await Promise.all([startWorker(), startWorker()]);
    const following = followSenders(fake, gateway.instance, workers);
    const campaigns: Array<{ id: number; min: number; phones: string[] }> = [];
    try {
      for (const [i, spec] of CAMPAIGNS.entries()) {
        const contacts = phones(CONTACTS_PER_CAMPAIGN, spec.firstPhone);
        const created = await company
          .post('/api/campaigns', {
            name: `Vez ${i}`,
            gatewayConfigId: saved.body.id,
            message: 'Olá {PrimeiroNome}',
            intervalMinSeconds: spec.min,
            intervalMaxSeconds: spec.max,
            contacts,
          })
          .expect(200);
        campaigns.push({
          id: created.body.id,
          min: spec.min,
          phones: contacts.map((c) => c.phoneNumber),
        });
      }
      for (const campaign of campaigns) {
        const done = await waitForCampaign(
          company,
          campaign.id,
          (c) => c.status === 'COMPLETED',
          150_000,
        );
        expect(done).toMatchObject({ sentContacts: CONTACTS_PER_CAMPAIGN, failedContacts: 0 });
      }
    } finally {
      following.stop();
    }

    const messages = fake.sent
      .filter((m) => m.instance === gateway.instance)
      .sort((a, b) => a.at.getTime() - b.at.getTime());
    const campaignOf = (m: FakeSentMessage): (typeof campaigns)[number] => {
      const found = campaigns.find((c) => c.phones.includes(m.number));
      if (!found) {
        throw new Error(`a message to ${m.number}, not a contact of these campaigns`);
      }
      return found;
    };

    // Each contact got exactly one message, and the service recorded that very message.
    const allPhones = campaigns.flatMap((c) => c.phones);
    expect(messages.map((m) => m.number).sort()).toEqual([...allPhones].sort());
    const { rows } = await pool.query<{ phone_number: string; gateway_message_id: string }>(
      `SELECT phone_number, gateway_message_id FROM campaign_contacts
        WHERE campaign_id = ANY($1) AND status = 'SENT'`,
      [campaigns.map((c) => c.id)],
    );
    expect(new Map(rows.map((r) => [r.phone_number, r.gateway_message_id]))).toEqual(
      new Map(messages.map((m) => [m.number, m.messageId])),
    );

    // The spacing: every message came at least its sender's pause after the one before it
    // (so never closer than the smallest pause, 1 s), less the measurement's tolerance.
    const tooClose = messages.slice(1).flatMap((message, i) => {
      const gapMs = message.at.getTime() - messages[i].at.getTime();
      const pauseMs = campaignOf(message).min * 1000;
      return gapMs >= pauseMs - CLOCK_TOLERANCE_MS
        ? []
        : [{ to: message.number, after: messages[i].number, gapMs, pauseMs }];
    });
    expect(tooClose).toEqual([]);
    const smallestPauseMs = Math.min(...CAMPAIGNS.map((c) => c.min)) * 1000;
    const gaps = messages.slice(1).map((m, i) => m.at.getTime() - messages[i].at.getTime());
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(smallestPauseMs - CLOCK_TOLERANCE_MS);

    // Both processes sent: the instance's pace held across them, not within one. They race for
    // every slot (the first to look once the pause ran out claims it): in trial runs each
    // process sent 10 to 14 of the 24 messages, turns interleaved.
    const pids = workers.map((w) => w.child.pid as number);
    const sentBy = pids.map((pid) => [...following.senders.values()].filter((p) => p === pid));
    expect(sentBy.map((sent) => sent.length > 0)).toEqual([true, true]);
  });
});
