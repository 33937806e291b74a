import { readFileSync } from 'node:fs';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { FakeEvolutionApi } from '../../support/fake-evolution-api';

/**
 * Holds the fake gateway to the real one. test/fixtures/evolution-2.3.6-observed.json was
 * recorded from Evolution API v2.3.6 (commit 3454bec) run for real with no WhatsApp behind it:
 * every request the service makes, in three states of an instance (created and never
 * connected; connecting in a loop, never paired; paired once, then disconnected), with the
 * gateway's exact answers. Each recorded request is replayed against FakeEvolutionApi put in
 * the recorded state, and the answers are compared record by record: the status always, the
 * body exactly except the fields in ALLOWED_TO_DIFFER.
 */

interface RecordedRequest {
  method: string;
  path: string;
  apikey?: string;
  body?: unknown;
}

interface RecordedAnswer {
  name: string;
  request: RecordedRequest | null;
  status: number | null;
  body: unknown;
}

interface Recording {
  gateway: { globalApiKey: string; instanceToken: string };
  instance: { name: string };
  numbers: { cached: string; seededMessageJid: string };
  webhooksReceivedSamples: Array<{ headers: IncomingHttpHeaders; body: Record<string, unknown> }>;
  observed: RecordedAnswer[];
}

const recording = JSON.parse(
  readFileSync(join(__dirname, '../../fixtures/evolution-2.3.6-observed.json'), 'utf8'),
) as Recording;
const INSTANCE = recording.instance.name;
const TOKEN = recording.gateway.instanceToken;

/**
 * Fields the fake may answer differently, and why: none of them is read by the service.
 * Every other field, and every error body, must be equal.
 */
const ALLOWED_TO_DIFFER = {
  /** Row ids and timestamps are made by the gateway's database. */
  webhookRow: ['id', 'createdAt', 'updatedAt', 'instanceId'],
  /** fetchInstances: the id, timestamps, profile, disconnection details and related rows. */
  instanceRow: [
    'id',
    'createdAt',
    'updatedAt',
    'profilePicUrl',
    'disconnectionReasonCode',
    'disconnectionObject',
    'disconnectionAt',
    'Chatwoot',
    'Proxy',
    'Rabbitmq',
    'Nats',
    'Sqs',
    'Websocket',
    'Setting',
    '_count',
  ],
  /** findMessages records: only `key` and `messageTimestamp` are read (reconciliation). */
  messageRecord: [
    'id',
    'pushName',
    'messageType',
    'message',
    'instanceId',
    'source',
    'contextInfo',
  ],
};

/** Recorded steps that are not requests of the service: how the instance got to its state. */
const TRANSITIONS: Record<string, (fake: FakeEvolutionApi) => void> = {
  'instance/create': (fake) => fake.addInstance(INSTANCE, { apiKey: TOKEN, state: 'no-socket' }),
  'seed IsOnWhatsapp': (fake) => fake.cacheNumber(INSTANCE, recording.numbers.cached),
  'seed Message': seedMessage,
  'instance/connect': (fake) => fake.setState(INSTANCE, 'never-paired'),
  'seed creds.me (simulated pairing)': () => undefined,
  'instance/connect (again, to reload creds)': (fake) => fake.setState(INSTANCE, 'close'),
  'instance/delete': (fake) => fake.removeInstance(INSTANCE),
};

/** Recorded answers that are no single answer to compare with, and why. */
const NOT_REPLAYED: Record<string, string> = {
  'connectionState burst (40 polls, 25 ms apart, after connect)':
    'a count of racy answers (close/connecting) during the reconnect loop',
  'connectionState right after delete':
    'racy in the real gateway: `close` in this run, no `state` in an earlier one',
};

function seedMessage(fake: FakeEvolutionApi): void {
  const found = recording.observed.find(
    (row) => row.name === 'findMessages (seeded message, window includes it)',
  );
  const record = (found?.body as { messages: { records: Array<Record<string, any>> } }).messages
    .records[0];
  const jid = recording.numbers.seededMessageJid;
  fake.sent.push({
    instance: INSTANCE,
    endpoint: 'sendText',
    number: jid,
    body: { number: jid, text: 'seeded' },
    at: new Date(record.messageTimestamp * 1000),
    messageId: record.key.id,
    remotePort: undefined,
  });
}

function apikeyOf(recorded: string | undefined): string | undefined {
  if (recorded === '(global key)') {
    return recording.gateway.globalApiKey;
  }
  return recorded === '(none)' ? undefined : recorded;
}

function omit(row: unknown, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row as Record<string, unknown>).filter(([field]) => !fields.includes(field)),
  );
}

/** The body as the comparison sees it: the fields allowed to differ left out. */
function comparable(request: RecordedRequest, status: number, body: any): unknown {
  if (status >= 300 || body === null) {
    return body;
  }
  if (request.path.startsWith('/webhook/')) {
    return omit(body, ALLOWED_TO_DIFFER.webhookRow);
  }
  if (request.path.startsWith('/instance/fetchInstances')) {
    return (body as unknown[]).map((row) => omit(row, ALLOWED_TO_DIFFER.instanceRow));
  }
  if (request.path.startsWith('/chat/findMessages/')) {
    const { records, ...page } = body.messages;
    return {
      messages: {
        ...page,
        records: (records as unknown[]).map((row) => omit(row, ALLOWED_TO_DIFFER.messageRecord)),
      },
    };
  }
  return body;
}

async function replay(fake: FakeEvolutionApi, request: RecordedRequest) {
  const apikey = apikeyOf(request.apikey);
  const hasBody = request.body !== null && request.body !== undefined;
  const response = await fetch(`${fake.url}${request.path}`, {
    method: request.method,
    headers: {
      ...(apikey === undefined ? {} : { apikey }),
      ...(hasBody ? { 'Content-Type': 'application/json' } : {}),
    },
    body: hasBody ? JSON.stringify(request.body) : undefined,
  });
  return { status: response.status, body: JSON.parse(await response.text()) as unknown };
}

interface Step {
  row: RecordedAnswer;
  /** Transitions recorded since the previous replayed request. */
  before: RecordedAnswer[];
}

function stepsOf(rows: RecordedAnswer[]): Step[] {
  const steps: Step[] = [];
  let pending: RecordedAnswer[] = [];
  for (const row of rows) {
    if (row.name in TRANSITIONS) {
      pending.push(row);
    } else if (!(row.name in NOT_REPLAYED)) {
      steps.push({ row, before: pending });
      pending = [];
    }
  }
  return steps;
}

describe('FakeEvolutionApi against the recording of Evolution API v2.3.6', () => {
  const fake = new FakeEvolutionApi({ globalApiKey: recording.gateway.globalApiKey });

  beforeAll(async () => {
    await fake.start();
    fake.unreachableMedia('example.com', 'EAI_AGAIN');
    fake.unreachableMedia('127.0.0.1:9', 'ECONNREFUSED');
  });

  afterAll(() => fake.stop());

  it('accounts for every recorded row: replayed, a state transition or named as not replayed', () => {
    const unaccounted = recording.observed.filter(
      (row) => row.request === null && !(row.name in TRANSITIONS),
    );
    expect(unaccounted.map((row) => row.name)).toEqual([]);
    for (const name of [...Object.keys(TRANSITIONS), ...Object.keys(NOT_REPLAYED)]) {
      expect(recording.observed.map((row) => row.name)).toContain(name);
    }
    expect(stepsOf(recording.observed).length).toBeGreaterThan(90);
  });

  describe.each(stepsOf(recording.observed).map((step) => [step.row.name, step] as const))(
    '%s',
    (_name, { row, before }) => {
      it(`answers ${row.status} as recorded`, async () => {
        for (const transition of before) {
          TRANSITIONS[transition.name](fake);
        }
        const request = row.request as RecordedRequest;
        const answer = await replay(fake, request);
        expect(answer.status).toBe(row.status);
        expect(comparable(request, answer.status, answer.body)).toEqual(
          comparable(request, row.status as number, row.body),
        );
      });
    },
  );
});

describe('FakeEvolutionApi reconnect storm', () => {
  const fake = new FakeEvolutionApi();
  const received: Array<{ url: string; headers: IncomingHttpHeaders; body: any }> = [];
  let receiver: Server;
  let hookUrl: string;

  beforeAll(async () => {
    await fake.start();
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({
          url: req.url ?? '',
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });

  afterAll(async () => {
    await fake.stop();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('posts the recorded connection.update "connecting" envelope, as many as asked', async () => {
    fake.addInstance(INSTANCE, { apiKey: TOKEN, state: 'never-paired' });
    const set = await fetch(`${fake.url}/webhook/set/${INSTANCE}`, {
      method: 'POST',
      headers: { apikey: TOKEN, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        webhook: {
          enabled: true,
          url: hookUrl,
          headers: { 'x-events-secret': 's3cr3t' },
          events: ['CONNECTION_UPDATE'],
        },
      }),
    });
    expect(set.status).toBe(201);

    const result = await fake.playReconnectStorm(INSTANCE, { perSecond: 100, seconds: 1 });

    expect(result).toEqual({ posted: 100, statuses: { 200: 100 } });
    expect(received).toHaveLength(100);
    const sample = recording.webhooksReceivedSamples[0];
    const [first] = received;
    expect(first.url).toBe('/hook');
    expect(first.headers['content-type']).toBe(sample.headers['content-type']);
    expect(first.headers['x-events-secret']).toBe(sample.headers['x-events-secret']);
    // date_time and server_url name this run; the recording shows `(instance token)` for apikey.
    expect(Object.keys(first.body).sort()).toEqual(Object.keys(sample.body).sort());
    expect(first.body).toMatchObject({
      event: sample.body.event,
      instance: sample.body.instance,
      data: sample.body.data,
      destination: hookUrl,
      apikey: TOKEN,
    });
  });
});
