import ExcelJS from 'exceljs';
import { UnreadableFileError } from '../../domain/user-database.errors';
import { isBlankRow, MAX_FILE_ROWS, MAX_ROW_CELLS, TabularFile } from './tabular-file';
import { guardXlsxArchive } from './xlsx-archive-guard';
import { canonicalXlsxStream } from './xlsx-canonical-order';

/**
 * An XLSX upload: its first worksheet, streamed by exceljs after the archive passed
 * guardXlsxArchive, from the archive put in canonical order (canonicalXlsxStream), so that the
 * shared strings are always read before the worksheet. Cells become text: dates as ISO (date only at midnight UTC), formulas as
 * their cached result, rich text and hyperlinks as their text.
 */
export async function openXlsxFile(path: string): Promise<TabularFile> {
  await guardXlsxArchive(path);
  return { kind: 'XLSX', encoding: null, delimiter: null, rows: () => readRows(path) };
}

async function* readRows(path: string): AsyncGenerator<string[]> {
  const input = await canonicalXlsxStream(path);
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  let rows = 0;
  try {
    for await (const worksheet of reader) {
      for await (const row of worksheet) {
        const cells = cellsOf(row);
        if (isBlankRow(cells)) {
          continue;
        }
        rows += 1;
        if (rows > MAX_FILE_ROWS + 1) {
          throw new UnreadableFileError(`O arquivo tem mais de ${MAX_FILE_ROWS} linhas`);
        }
        yield cells;
      }
      // Only the first worksheet is a table of contacts.
      break;
    }
  } catch (error) {
    throw error instanceof UnreadableFileError
      ? error
      : new UnreadableFileError('Não foi possível ler o arquivo XLSX: a planilha está corrompida');
  } finally {
    input.destroy();
  }
}

function cellsOf(row: ExcelJS.Row): string[] {
  const values = row.values as ExcelJS.CellValue[];
  if (values.length > MAX_ROW_CELLS + 1) {
    throw new UnreadableFileError(`A linha ${row.number} da planilha tem células demais`);
  }
  const cells: string[] = [];
  // exceljs numbers cells from 1; index 0 is always empty.
  for (let i = 1; i < values.length; i += 1) {
    cells.push(textOf(values[i]).trim());
  }
  return cells;
}

export function textOf(value: ExcelJS.CellValue | undefined): string {
  if (value === null || value === undefined) {
    return '';
  }
  if (typeof value === 'string') {
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) {
      return '';
    }
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if ('richText' in value) {
    return value.richText.map((part) => part.text).join('');
  }
  if ('formula' in value || 'sharedFormula' in value) {
    return textOf((value as ExcelJS.CellFormulaValue).result);
  }
  if ('text' in value) {
    return typeof value.text === 'string' ? value.text : textOf(value.text);
  }
  return '';
}
