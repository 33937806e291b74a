import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { DateTime } from 'luxon';
import type { Response } from 'superagent';
import { CONTACT_EXPORT_HEADERS } from '../../../src/modules/campaigns/domain/campaign-contact-export';
import { phones } from '../../support/campaigns';
import {
  completedPool,
  eventsApplied,
  mixedReceiptsCampaign,
  PEOPLE,
} from '../../support/campaign-contacts';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { trackedConfig } from '../../support/gateway-events';
import type { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';

/** A zone with a half-hour offset, so that no default could pass for it. */
const ZONE = 'Asia/Kolkata';

/** The contract's headers, in order. */
const HEADERS = [...CONTACT_EXPORT_HEADERS];

/** Names a spreadsheet would run as formulas, and what the export must write instead. */
const FORMULAS: Array<[string, string]> = [
  ['=HYPERLINK("http://evil.example","clique")', `'=HYPERLINK("http://evil.example","clique")`],
  ['+cmd|calc', `'+cmd|calc`],
  ['@SUM(A1:A9)', `'@SUM(A1:A9)`],
  ['-1', `'-1`],
];

const OPTED_OUT = { phoneNumber: '5511987001020', name: 'Quer Sair' };

/** supertest parser that keeps the body as bytes (the response is superagent's stream). */
function binary(response: any, callback: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  response.on('data', (chunk: Buffer) => chunks.push(chunk));
  response.on('end', () => callback(null, Buffer.concat(chunks)));
}

/** `yyyy-MM-ddTHH:mm:ss` of the API as the export writes it. */
function dayFirst(local: string | undefined): string {
  return local
    ? `${local.slice(8, 10)}/${local.slice(5, 7)}/${local.slice(0, 4)} ${local.slice(11)}`
    : '';
}

/** The export's cells of a contact of the list. */
function cellsOfListed(contact: Record<string, any>, optedOut: Set<string>): string[] {
  const neutral = (text: string): string => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
  return [
    contact.phoneNumber,
    neutral(contact.name),
    contact.status,
    contact.failureKind ?? '',
    contact.failureReason ?? '',
    contact.sender.instance,
    dayFirst(contact.sentAt),
    dayFirst(contact.deliveredAt),
    dayFirst(contact.readAt),
    dayFirst(contact.repliedAt),
    optedOut.has(contact.phoneNumber) ? 'sim' : 'não',
  ];
}

async function xlsxRows(body: Buffer): Promise<string[][]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(body as unknown as ExcelJS.Buffer);
  const rows: string[][] = [];
  workbook.worksheets[0].eachRow((row) => {
    rows.push(
      HEADERS.map((_h, i) => {
        const value = row.getCell(i + 1).value;
        expect(typeof value === 'string' || value === null).toBe(true);
        return (value as string | null) ?? '';
      }),
    );
  });
  return rows;
}

/**
 * GET /api/campaigns/{id}/contacts/export: the file read back (csv-parse, exceljs) holds what
 * the contacts list shows, cell for cell, with no cell a spreadsheet would run.
 */
describe('exporting a campaign’s contacts', () => {
  const {
    t,
    fake,
    companies: [company],
  } = useE2eFixture({
    publicBaseUrl: true,
    noRefusals: true,
    companies: 1,
    env: { APP_TIMEZONE: ZONE },
  });
  let campaign: { id: number; instance: string; configId: number };

  beforeAll(async () => {
    campaign = await mixedReceiptsCampaign(company, fake, [
      ...FORMULAS.map(([name], i) => ({ phoneNumber: `551198700101${i}`, name })),
      OPTED_OUT,
    ]);
    await fake.emitInbound(campaign.instance, { from: OPTED_OUT.phoneNumber, text: 'Sair' });
    await until(
      async () =>
        (
          await db().query(
            `SELECT count(*)::int AS n FROM blocked_contacts WHERE company_id = $1 AND blocked_by = 'OPT_OUT'`,
            [company.id],
          )
        ).rows[0].n,
      (n) => n === 1,
    );
    await eventsApplied(campaign.configId);
  });

  function download(as: TestCompany, query: string, id = campaign.id): Promise<Response> {
    return as.get(`/api/campaigns/${id}/contacts/export?${query}`).buffer(true).parse(binary);
  }

  async function listed(query = '', id = campaign.id): Promise<Array<Record<string, any>>> {
    return (await company.get(`/api/campaigns/${id}/contacts?size=100&${query}`).expect(200)).body;
  }

  it('writes a CSV Excel in Portuguese opens: BOM, “;”, headers, the list’s values, dates in APP_TIMEZONE', async () => {
    const response = await download(company, 'format=csv');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="campanha-${campaign.id}-contatos.csv"`,
    );
    const body = response.body as Buffer;
    expect([...body.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = body.toString('utf8');
    expect(text.slice(1, text.indexOf('\r\n'))).toBe(HEADERS.join(';'));
    const rows: string[][] = parse(text, { bom: true, delimiter: ';' });
    expect(rows[0]).toEqual(HEADERS);
    expect(rows[0].slice(0, 3)).toEqual(['Telefone', 'Nome', 'Status']);

    const contacts = await listed();
    expect(contacts).toHaveLength(Object.keys(PEOPLE).length + FORMULAS.length + 1);
    const optedOut = new Set([OPTED_OUT.phoneNumber]);
    expect(rows.slice(1)).toEqual(contacts.map((c) => cellsOfListed(c, optedOut)));

    const { rows: stored } = await db().query(
      `SELECT sent_at, read_at FROM campaign_contacts WHERE campaign_id = $1 AND phone_number = $2`,
      [campaign.id, PEOPLE.read.phoneNumber],
    );
    const inZone = (date: Date): string =>
      DateTime.fromJSDate(date, { zone: ZONE }).toFormat('dd/MM/yyyy HH:mm:ss');
    const read = rows.find((row) => row[0] === PEOPLE.read.phoneNumber)!;
    expect(read[6]).toBe(inZone(stored[0].sent_at));
    expect(read[8]).toBe(inZone(stored[0].read_at));
    expect(rows.find((row) => row[0] === OPTED_OUT.phoneNumber)![10]).toBe('sim');
    expect(rows.find((row) => row[0] === PEOPLE.nacked.phoneNumber)!.slice(2, 4)).toEqual([
      'FAILED',
      'not_delivered',
    ]);
  });

  it('neutralizes every cell that would start a formula, in the CSV and the XLSX', async () => {
    const csv: string[][] = parse((await download(company, 'format=csv')).body as Buffer, {
      bom: true,
      delimiter: ';',
    });
    const xlsx = await xlsxRows((await download(company, 'format=xlsx')).body as Buffer);
    for (const rows of [csv, xlsx]) {
      const names = rows.map((row) => row[1]);
      for (const [name, written] of FORMULAS) {
        expect(names).toContain(written);
        expect(names).not.toContain(name);
      }
      expect(rows.flat().filter((cell) => /^[=+\-@\t\r]/.test(cell))).toEqual([]);
    }
  });

  it('writes an XLSX with the same rows as the CSV and the list', async () => {
    const response = await download(company, 'format=xlsx');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="campanha-${campaign.id}-contatos.xlsx"`,
    );
    const rows = await xlsxRows(response.body as Buffer);
    expect(rows[0]).toEqual(HEADERS);
    const optedOut = new Set([OPTED_OUT.phoneNumber]);
    expect(rows.slice(1)).toEqual((await listed()).map((c) => cellsOfListed(c, optedOut)));
  });

  it('exports only what the filters find, as the list does', async () => {
    for (const query of ['status=FAILED', 'receipt=READ&search=jose', 'search=98700101']) {
      const csv: string[][] = parse((await download(company, `format=csv&${query}`)).body, {
        bom: true,
        delimiter: ';',
      });
      const contacts = await listed(query);
      expect(contacts.length).toBeGreaterThan(0);
      expect(csv.slice(1).map((row) => row[0])).toEqual(contacts.map((c) => c.phoneNumber));
      const xlsx = await xlsxRows((await download(company, `format=xlsx&${query}`)).body);
      expect(xlsx.slice(1)).toEqual(csv.slice(1));
    }
  });

  it('exports a pool’s contacts with the number each went through', async () => {
    const contacts = phones(6, 8800);
    const pool = await completedPool(company, fake, contacts);
    const csv: string[][] = parse((await download(company, 'format=csv', pool.id)).body, {
      bom: true,
      delimiter: ';',
    });
    expect(csv.slice(1)).toEqual(
      (await listed('', pool.id)).map((c) => cellsOfListed(c, new Set())),
    );
    expect(new Set(csv.slice(1).map((row) => row[5]))).toEqual(
      new Set(pool.senders.map((s) => s.instance)),
    );
  });

  it('refuses a bad format before the first byte, with the error body', async () => {
    const path = `/api/campaigns/${campaign.id}/contacts/export`;
    for (const [query, message] of [
      ['format=pdf', '{format=deve ser um de: csv, xlsx}'],
      ['', '{format=deve ser um de: csv, xlsx}'],
      [
        'format=csv&receipt=SEEN',
        '{receipt=deve ser um de: DELIVERED, READ, REPLIED, NOT_DELIVERED}',
      ],
    ]) {
      const response = await company.get(`${path}?${query}`);
      expect(expectErrorBody(response, 400, path)).toBe(message);
      expect(response.headers['content-disposition']).toBeUndefined();
    }
  });

  it('releases the database connection when the client goes away mid-export', async () => {
    const config = await trackedConfig(company, fake);
    const big = (
      await company
        .post('/api/campaigns', {
          name: 'Grande',
          gatewayConfigId: config.id,
          message: 'Olá',
          scheduledFor: '2099-01-01T10:00',
          contacts: phones(40_000, 100_000),
        })
        .expect(200)
    ).body;
    const exporting = async (): Promise<number> =>
      (
        await db().query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE query LIKE 'FETCH % FROM contacts_export' AND state = 'idle in transaction'`,
        )
      ).rows[0].n;
    const url = new URL(`${t.baseUrl}/api/campaigns/${big.id}/contacts/export?format=csv`);
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      httpRequest(url, { headers: { 'X-Access-Token': company.token } }, resolve)
        .on('error', reject)
        .end();
    });
    expect(response.statusCode).toBe(200);
    // Not read: the export waits for the client with its cursor open.
    response.pause();
    expect(await until(exporting, (n) => n === 1)).toBe(1);
    response.destroy();
    expect(await until(exporting, (n) => n === 0)).toBe(0);
  });
});
