import { parse, type CsvError } from 'csv-parse';
import { createReadStream } from 'node:fs';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { TextDecoder } from 'node:util';
import { UnreadableFileError } from '../../domain/user-database.errors';
import { isBlankRow, MAX_FILE_ROWS, MAX_ROW_CELLS, TabularFile } from './tabular-file';
import { readFileHead } from './file-head';

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** Bytes read to find the header line's delimiter. */
const HEAD_BYTES = 64 * 1024;
/** Characters in one row; a file without line breaks is not a table. */
const MAX_RECORD_CHARS = 1_000_000;
const DELIMITERS = [';', ',', '\t'] as const;

const CSV_ERRORS: Partial<Record<string, string>> = {
  CSV_QUOTE_NOT_CLOSED: 'aspas abertas e não fechadas',
  CSV_INVALID_CLOSING_QUOTE: 'aspas fechadas no meio de um valor',
  INVALID_OPENING_QUOTE: 'aspas abertas no meio de um valor',
  CSV_MAX_RECORD_SIZE: 'linha longa demais',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'caractere inesperado depois de aspas',
};

/**
 * A CSV upload: UTF-8 (with or without BOM) or, when the bytes are not valid UTF-8,
 * Windows-1252 (the Latin-1 that Excel writes in Brazil); comma, semicolon or tab, whichever
 * the header line uses most outside quotes.
 */
export async function openCsvFile(path: string): Promise<TabularFile> {
  const encoding = (await isUtf8(path)) ? 'utf-8' : 'windows-1252';
  const delimiter = await detectDelimiter(path, encoding);
  return {
    kind: 'CSV',
    encoding,
    delimiter,
    rows: () => readRows(path, encoding, delimiter),
  };
}

async function* readRows(
  path: string,
  encoding: string,
  delimiter: string,
): AsyncGenerator<string[]> {
  const input = createReadStream(path);
  const parser = parse({
    delimiter,
    bom: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    trim: true,
    max_record_size: MAX_RECORD_CHARS,
  });
  const source: Readable = encoding === 'utf-8' ? input : input.pipe(new ReencodeToUtf8(encoding));
  source.on('error', (error: Error) => parser.destroy(error));
  source.pipe(parser);
  let rows = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (isBlankRow(record)) {
        continue;
      }
      if (record.length > MAX_ROW_CELLS) {
        throw new UnreadableFileError(`Linha ${rows + 1} do CSV tem células demais`);
      }
      rows += 1;
      if (rows > MAX_FILE_ROWS + 1) {
        throw new UnreadableFileError(`O arquivo tem mais de ${MAX_FILE_ROWS} linhas`);
      }
      yield record;
    }
  } catch (error) {
    throw csvFailure(error);
  } finally {
    input.destroy();
    parser.destroy();
  }
}

function csvFailure(error: unknown): unknown {
  if (error instanceof UnreadableFileError) {
    return error;
  }
  const code = (error as Partial<CsvError>).code;
  if ((typeof code === 'string' && code.startsWith('CSV_')) || code === 'INVALID_OPENING_QUOTE') {
    const line = (error as { lines?: number }).lines;
    return new UnreadableFileError(
      `CSV inválido${line ? ` na linha ${line}` : ''}: ${CSV_ERRORS[code as string] ?? 'formato não reconhecido'}`,
    );
  }
  return error;
}

/** The whole file, streamed through a fatal decoder: one invalid sequence means it is not UTF-8. */
async function isUtf8(path: string): Promise<boolean> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) {
      decoder.decode(chunk as Buffer, { stream: true });
    }
    decoder.decode();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA') {
      return false;
    }
    throw error;
  }
}

async function detectDelimiter(path: string, encoding: string): Promise<string> {
  const head = await readFileHead(path, HEAD_BYTES);
  const text = new TextDecoder(encoding).decode(stripBom(head));
  return delimiterOfFirstLine(text);
}

/** The delimiter used most outside quotes on the first non-empty line; comma when none appears. */
export function delimiterOfFirstLine(text: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const char of text.replace(/^[\r\n]+/, '')) {
    if (char === '"') {
      quoted = !quoted;
    } else if (!quoted && (char === '\n' || char === '\r')) {
      break;
    } else if (!quoted && counts.has(char)) {
      counts.set(char, (counts.get(char) as number) + 1);
    }
  }
  let best = ',';
  let bestCount = 0;
  for (const [delimiter, count] of counts) {
    if (count > bestCount) {
      best = delimiter;
      bestCount = count;
    }
  }
  return best;
}

function stripBom(buffer: Buffer): Buffer {
  return buffer.subarray(0, 3).equals(UTF8_BOM) ? buffer.subarray(3) : buffer;
}

/** Decodes a single-byte encoding and hands csv-parse UTF-8. */
class ReencodeToUtf8 extends Transform {
  private readonly decoder: TextDecoder;

  constructor(encoding: string) {
    super();
    this.decoder = new TextDecoder(encoding);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    callback(null, Buffer.from(this.decoder.decode(chunk, { stream: true }), 'utf8'));
  }

  override _flush(callback: TransformCallback): void {
    callback(null, Buffer.from(this.decoder.decode(), 'utf8'));
  }
}
