import { Injectable } from '@nestjs/common';
import { TabularFiles } from '../../application/ports/tabular-files';
import { UnreadableFileError } from '../../domain/user-database.errors';
import { openCsvFile } from './csv-file';
import type { TabularFile } from './tabular-file';
import { openXlsxFile } from './xlsx-file';
import { readFileHead } from './file-head';

const ZIP = Buffer.from('PK\u0003\u0004', 'latin1');
const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0]);
const SNIFF_BYTES = 8192;

/**
 * CSV or XLSX, told apart by the bytes, not the name: a ZIP is read as XLSX; the old binary
 * .xls and other binary files are refused. A file named .xlsx whose bytes are not a ZIP is
 * refused too, instead of being read as a one-column CSV.
 */
export async function openTabularFile(path: string, declaredName = ''): Promise<TabularFile> {
  const head = await readFileHead(path, SNIFF_BYTES);
  if (head.length === 0) {
    throw new UnreadableFileError('O arquivo está vazio');
  }
  if (head.subarray(0, 4).equals(ZIP)) {
    return openXlsxFile(path);
  }
  if (/\.xlsx$/i.test(declaredName.trim())) {
    throw new UnreadableFileError(
      'O arquivo foi enviado como .xlsx, mas não é uma planilha XLSX válida',
    );
  }
  if (head.subarray(0, 4).equals(OLE2)) {
    throw new UnreadableFileError('Formato .xls não é aceito: salve a planilha como .xlsx ou .csv');
  }
  if (head.includes(0)) {
    throw new UnreadableFileError('O arquivo não é um CSV nem um XLSX');
  }
  return openCsvFile(path);
}

@Injectable()
export class SniffedTabularFiles implements TabularFiles {
  open(path: string, declaredName = ''): Promise<TabularFile> {
    return openTabularFile(path, declaredName);
  }
}
