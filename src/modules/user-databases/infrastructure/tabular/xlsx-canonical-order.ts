import archiver from 'archiver';
import type { Readable } from 'node:stream';
import * as yauzl from 'yauzl';

const WORKSHEET = /^xl\/worksheets\/sheet\d+\.xml$/;
const SHARED_STRINGS = 'xl/sharedStrings.xml';
/** An empty shared-strings table, for workbooks that keep every text inline. */
const EMPTY_SHARED_STRINGS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="0" uniqueCount="0"/>';

/**
 * The archive's entries again, stored (not compressed), with every part a worksheet needs —
 * relationships, workbook, styles and shared strings — before the worksheets, whatever the
 * order the file had (Excel writes the shared strings after the worksheets). exceljs's
 * streaming reader reads entries in archive order; given a worksheet first, it sets it aside
 * in a temporary file and, now and then, reads its text cells without their strings. In this
 * order every worksheet is read once, with its strings. The archive passed guardXlsxArchive.
 */
export function canonicalXlsxStream(path: string): Promise<Readable> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (openError, zip) => {
      if (openError || !zip) {
        reject(openError ?? new Error('zip not opened'));
        return;
      }
      const entries: yauzl.Entry[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        entries.push(entry);
        zip.readEntry();
      });
      zip.on('error', reject);
      zip.on('end', () => resolve(rewrite(zip, entries)));
      zip.readEntry();
    });
  });
}

function rewrite(zip: yauzl.ZipFile, entries: yauzl.Entry[]): Readable {
  const output = archiver('zip', { store: true });
  const parts = entries.filter((e) => !e.fileName.endsWith('/') && !WORKSHEET.test(e.fileName));
  const worksheets = entries
    .filter((e) => WORKSHEET.test(e.fileName))
    .sort((a, b) => sheetNumber(a) - sheetNumber(b));
  void (async () => {
    try {
      for (const entry of parts) {
        output.append(await openEntry(zip, entry), { name: entry.fileName });
      }
      if (!parts.some((entry) => entry.fileName === SHARED_STRINGS)) {
        output.append(EMPTY_SHARED_STRINGS, { name: SHARED_STRINGS });
      }
      for (const entry of worksheets) {
        output.append(await openEntry(zip, entry), { name: entry.fileName });
      }
      await output.finalize();
    } catch (error) {
      output.destroy(error instanceof Error ? error : new Error(String(error)));
    } finally {
      output.once('close', () => zip.close());
      output.once('error', () => zip.close());
    }
  })();
  return output;
}

function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) =>
      error || !stream ? reject(error ?? new Error('entry not opened')) : resolve(stream),
    );
  });
}

function sheetNumber(entry: yauzl.Entry): number {
  return Number(/sheet(\d+)\.xml$/.exec(entry.fileName)?.[1] ?? 0);
}
