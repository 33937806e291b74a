import ExcelJS from 'exceljs';
import { crc32, deflateRawSync } from 'node:zlib';
import type request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import type { TestCompany } from './test-app';

export interface ColumnMapping {
  originalName: string;
  displayName?: string;
  dataType?: 'TEXT' | 'NUMBER' | 'DATE' | 'BOOLEAN' | 'PHONE' | 'EMAIL';
  isPhoneColumn?: boolean;
}

/** CSV text from rows of cells (cells are written as given; quote them yourself when needed). */
export function csv(rows: Array<Array<string | number>>, delimiter = ','): string {
  return rows.map((row) => row.join(delimiter)).join('\r\n') + '\r\n';
}

/** `count` data rows: Nome, Telefone (valid, distinct), Email, Cidade. */
export function contactsCsv(count: number, delimiter = ','): Buffer {
  const lines = ['Nome,Telefone,Email,Cidade'.replace(/,/g, delimiter)];
  const cities = ['São Paulo', 'Curitiba', 'Recife'];
  for (let i = 0; i < count; i += 1) {
    lines.push(
      [`Pessoa ${i}`, `5511${String(900000000 + i)}`, `p${i}@exemplo.com.br`, cities[i % 3]].join(
        delimiter,
      ),
    );
  }
  return Buffer.from(lines.join('\n') + '\n', 'utf8');
}

/** A response's columns as [columnName, dataType, isPhoneColumn, isNameColumn], for one toEqual. */
export function columnShapes(database: {
  columns: Array<{
    columnName: string;
    dataType: string;
    isPhoneColumn: boolean;
    isNameColumn: boolean;
  }>;
}): Array<[string, string, boolean, boolean]> {
  return database.columns.map((c) => [c.columnName, c.dataType, c.isPhoneColumn, c.isNameColumn]);
}

export async function xlsx(rows: unknown[][], sheetName = 'Contatos'): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet(sheetName);
  for (const row of rows) {
    sheet.addRow(row);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

export interface ZipEntrySpec {
  name: string;
  data: Buffer;
  /** What the headers claim; defaults to the real size. */
  declaredSize?: number;
}

/**
 * A ZIP written by hand (deflate, no data descriptors), so that tests can build archives a
 * normal writer would refuse to make: sizes that lie, or ratios of a deflate bomb.
 */
export function zip(entries: ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const compressed = deflateRawSync(entry.data, { level: 9 });
    const name = Buffer.from(entry.name, 'utf8');
    const size = entry.declaredSize ?? entry.data.length;
    const crc = crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** The parts of an XLSX around one worksheet XML, for hand-made archives. */
export function xlsxEntries(sheetXml: Buffer, declaredSheetSize?: number): ZipEntrySpec[] {
  const text = (s: string): Buffer => Buffer.from(s, 'utf8');
  return [
    {
      name: '[Content_Types].xml',
      data: text(
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
          '<Default Extension="xml" ContentType="application/xml"/></Types>',
      ),
    },
    {
      name: 'xl/workbook.xml',
      data: text(
        '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
          '<sheets><sheet name="S" sheetId="1"/></sheets></workbook>',
      ),
    },
    { name: 'xl/worksheets/sheet1.xml', data: sheetXml, declaredSize: declaredSheetSize },
  ];
}

/** A worksheet XML that inflates to about `bytes`: the same row, over and over. */
export function hugeSheetXml(bytes: number): Buffer {
  const head = '<?xml version="1.0"?><worksheet><sheetData>';
  const row = '<row><c t="inlineStr"><is><t>5511987654321</t></is></c></row>';
  const count = Math.ceil(bytes / row.length);
  return Buffer.from(head + row.repeat(count) + '</sheetData></worksheet>', 'utf8');
}

export function uploadFile(
  http: TestAgent,
  company: TestCompany,
  path: string,
  file: Buffer,
  filename: string,
): request.Test {
  return http.post(path).set(company.auth).attach('file', file, { filename });
}

/** POST /api/user-databases with the file and the JSON config part (as application/json). */
export function createDatabase(
  http: TestAgent,
  company: TestCompany,
  file: Buffer,
  filename: string,
  config: { name: string; description?: string; columnMappings: ColumnMapping[] },
): request.Test {
  return http
    .post('/api/user-databases')
    .set(company.auth)
    .attach('file', file, { filename })
    .attach('config', Buffer.from(JSON.stringify(config)), {
      filename: 'config.json',
      contentType: 'application/json',
    });
}

export const CONTACT_MAPPINGS: ColumnMapping[] = [
  { originalName: 'Nome', displayName: 'Nome', dataType: 'TEXT', isPhoneColumn: false },
  { originalName: 'Telefone', displayName: 'Telefone', dataType: 'PHONE', isPhoneColumn: true },
  { originalName: 'Email', displayName: 'E-mail', dataType: 'EMAIL', isPhoneColumn: false },
  { originalName: 'Cidade', displayName: 'Cidade', dataType: 'TEXT', isPhoneColumn: false },
];

/** A database of `count` contacts from contactsCsv; returns its id. */
export async function contactsDatabase(
  http: TestAgent,
  company: TestCompany,
  count = 3,
  name = 'Clientes',
): Promise<number> {
  const response = await createDatabase(http, company, contactsCsv(count), 'clientes.csv', {
    name,
    columnMappings: CONTACT_MAPPINGS,
  });
  if (response.status !== 201) {
    throw new Error(`database not created: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return (response.body as { id: number }).id;
}

/** The entries of a ZIP in archive order, inflated (test fixtures are small). */
export async function unzipEntries(archive: Buffer): Promise<ZipEntrySpec[]> {
  const { fromBuffer } = await import('yauzl');
  return new Promise((resolve, reject) => {
    fromBuffer(archive, { lazyEntries: true }, (error, zipFile) => {
      if (error || !zipFile) {
        reject(error ?? new Error('zip not opened'));
        return;
      }
      const entries: ZipEntrySpec[] = [];
      zipFile.on('entry', (entry: { fileName: string }) => {
        if (entry.fileName.endsWith('/')) {
          zipFile.readEntry();
          return;
        }
        zipFile.openReadStream(entry as never, (streamError, stream) => {
          if (streamError || !stream) {
            reject(streamError ?? new Error('entry not opened'));
            return;
          }
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            entries.push({ name: entry.fileName, data: Buffer.concat(chunks) });
            zipFile.readEntry();
          });
        });
      });
      zipFile.on('end', () => resolve(entries));
      zipFile.on('error', reject);
      zipFile.readEntry();
    });
  });
}

/** The same workbook with its shared strings written after the worksheets, as Excel does. */
export async function xlsxWithSharedStringsLast(rows: unknown[][]): Promise<Buffer> {
  const entries = await unzipEntries(await xlsx(rows));
  const shared = entries.filter((e) => e.name === 'xl/sharedStrings.xml');
  expect(shared).toHaveLength(1);
  return zip([...entries.filter((e) => e.name !== 'xl/sharedStrings.xml'), ...shared]);
}
