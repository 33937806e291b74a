import { once } from 'node:events';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import ExcelJS from 'exceljs';
import type { Response } from 'express';
import {
  CONTACT_EXPORT_HEADERS,
  contactExportCells,
  type CampaignContactExportRow,
} from '../domain/campaign-contact-export';
import type { ContactsExportFormat } from './campaign-queries.dto';

type Batches = AsyncGenerator<CampaignContactExportRow[]>;

export const CONTACTS_EXPORT_CONTENT_TYPES: Record<ContactsExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

async function* cellsOf(batches: Batches, zone: string): AsyncGenerator<string[]> {
  for await (const batch of batches) {
    for (const row of batch) {
      yield contactExportCells(row, zone);
    }
  }
}

/**
 * CSV as Excel set to Portuguese opens it: a UTF-8 BOM (or it reads Latin-1), `;` (its list
 * separator, the comma being the decimal one), CRLF lines. `pipeline` waits for the client
 * (backpressure) and, when the client goes, ends the batches (their connection is released).
 */
async function writeCsv(batches: Batches, zone: string, out: Writable): Promise<void> {
  await pipeline(
    Readable.from(cellsOf(batches, zone)),
    stringify({
      bom: true,
      delimiter: ';',
      record_delimiter: 'windows',
      header: true,
      columns: [...CONTACT_EXPORT_HEADERS],
    }),
    out,
  );
}

/** A stream written past its mark, as Node's streams and readable-stream 2 both keep it. */
interface Backlogged extends NodeJS.EventEmitter {
  _writableState?: { needDrain?: boolean };
}

/**
 * Resolves once `stream` took what was written (or at once when it is not full), or once the
 * client went away (then `out.destroyed`): a stream the client no longer reads never drains.
 */
async function drained(stream: Backlogged, out: Writable): Promise<void> {
  if (!stream._writableState?.needDrain || out.destroyed) {
    return;
  }
  // The listener that did not fire goes too: one per batch would pile up on the response.
  const waited = new AbortController();
  try {
    await Promise.race([
      once(stream, 'drain', { signal: waited.signal }),
      once(out, 'close', { signal: waited.signal }),
    ]);
  } finally {
    waited.abort();
  }
}

/**
 * The input of the sheet's zip entry. exceljs writes the rows into it without waiting (its
 * StreamBuf ignores write()'s answer), so rows pile up ahead of the compression: 50 MB for
 * 100,000 rows. This stream (archiver's PassThrough) says when it is full.
 */
function zipEntryInputOf(sheet: ExcelJS.Worksheet): Backlogged | undefined {
  return (sheet as unknown as { stream?: { pipes?: Backlogged[] } }).stream?.pipes?.[0];
}

/**
 * XLSX streamed: each row is committed (written to the zip) as it comes and nothing is kept;
 * every cell is text, like the CSV's. Between batches it waits for the client to read.
 */
async function writeXlsx(batches: Batches, zone: string, out: Writable): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out,
    useStyles: false,
    useSharedStrings: false,
  });
  const sheet = workbook.addWorksheet('Contatos');
  sheet.addRow([...CONTACT_EXPORT_HEADERS]).commit();
  // Leaving the loop early (the client went) ends the batches' cursor.
  for await (const batch of batches) {
    for (const row of batch) {
      sheet.addRow(contactExportCells(row, zone)).commit();
    }
    const entry = zipEntryInputOf(sheet);
    if (entry) {
      await drained(entry, out);
    }
    await drained(out as Backlogged, out);
    if (out.destroyed) {
      return;
    }
  }
  sheet.commit();
  await workbook.commit();
}

/** How long an export waits for a client that reads nothing. */
const STALLED_CLIENT_MS = 60_000;

/** Writes the contacts to the response; a failure after the first byte can only cut it short. */
export async function writeContactsExport(
  format: ContactsExportFormat,
  batches: Batches,
  zone: string,
  response: Response,
  filename: string,
): Promise<void> {
  response.status(200);
  response.setHeader('Content-Type', CONTACTS_EXPORT_CONTENT_TYPES[format]);
  response.setHeader('Content-Disposition', `attachment; filename="${filename}.${format}"`);
  response.setHeader('Cache-Control', 'no-store');
  // A client that stays connected but stops reading would hold the export's read connection
  // and its cursor's transaction for ever: its socket idle that long, it is cut off.
  response.setTimeout(STALLED_CLIENT_MS, () => response.destroy());
  try {
    await (format === 'csv' ? writeCsv : writeXlsx)(batches, zone, response);
  } catch (error) {
    await batches.return(undefined);
    if (!response.headersSent) {
      // Nothing went out (the first read failed): the error body answers instead.
      response.removeHeader('Content-Disposition');
      throw error;
    }
    response.destroy(error as Error);
  }
}
