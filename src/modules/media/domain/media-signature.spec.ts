import { crc32 } from 'node:zlib';
import {
  ACCEPTED_EXTENSIONS,
  acceptedKindFor,
  extensionOf,
  type AcceptedMediaKind,
} from './media-kind';
import { checkSignature, officePackageOf } from './media-signature';

const ascii = (text: string): Buffer => Buffer.from(text, 'latin1');
const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const riff = (form: string): Buffer => Buffer.concat([ascii('RIFF'), hex('24000000'), ascii(form)]);
const ftyp = (brand: string): Buffer =>
  Buffer.concat([hex('00000018'), ascii(`ftyp${brand}`), hex('00000200'), ascii(`${brand}isom`)]);
const ogg = (codec: string): Buffer =>
  Buffer.concat([ascii('OggS\x00\x02'), Buffer.alloc(22), ascii(codec)]);

function zip(names: string[]): Buffer {
  return Buffer.concat(
    names.map((name) => {
      const header = Buffer.alloc(30);
      header.writeUInt32LE(0x04034b50, 0);
      header.writeUInt32LE(crc32(ascii('x')), 14);
      header.writeUInt32LE(1, 18);
      header.writeUInt32LE(1, 22);
      header.writeUInt16LE(name.length, 26);
      return Buffer.concat([header, ascii(name), ascii('x')]);
    }),
  );
}

const CFB = hex('d0cf11e0a1b11ae1 0000000000000000 0000000000000000 3e000300feff0900');

/** The head of a genuine file of each accepted kind. */
const GENUINE: Record<string, Buffer> = {
  jpg: hex('ffd8ffe000104a464946000101'),
  jpeg: hex('ffd8ffe1001845786966'),
  png: hex('89504e470d0a1a0a0000000d49484452'),
  gif: ascii('GIF89a\x01\x00\x01\x00'),
  webp: Buffer.concat([riff('WEBP'), ascii('VP8 ')]),
  mp4: ftyp('isom'),
  avi: Buffer.concat([riff('AVI '), ascii('LIST')]),
  mov: ftyp('qt  '),
  mkv: hex('1a45dfa3 a3 4286 81 01 42f7 81 01 42f2 81 04 42f3 81 08 4282 88 6d6174726f736b61'),
  mp3: ascii('ID3\x03\x00\x00\x00\x00\x00\x0a'),
  wav: Buffer.concat([riff('WAVE'), ascii('fmt ')]),
  ogg: ogg('\x01vorbis'),
  m4a: ftyp('M4A '),
  aac: hex('fff15080021ffc'),
  pdf: ascii('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n'),
  doc: CFB,
  docx: zip(['[Content_Types].xml', '_rels/.rels', 'word/document.xml']),
  xls: CFB,
  xlsx: zip(['[Content_Types].xml', '_rels/.rels', 'xl/workbook.xml']),
};

const padded = (head: Buffer): Buffer => Buffer.concat([head, Buffer.alloc(512)]);
const kind = (extension: string): AcceptedMediaKind => {
  const found = acceptedKindFor(extension);
  if (!found) {
    throw new Error(`not accepted: ${extension}`);
  }
  return found;
};

describe('media kinds and signatures', () => {
  it('accepts exactly the kinds of docs/API-RULES.md §8', () => {
    expect([...ACCEPTED_EXTENSIONS].sort()).toEqual(
      [
        'jpg',
        'jpeg',
        'png',
        'gif',
        'webp',
        'mp4',
        'avi',
        'mov',
        'mkv',
        'mp3',
        'wav',
        'ogg',
        'm4a',
        'aac',
        'pdf',
        'doc',
        'docx',
        'xls',
        'xlsx',
      ].sort(),
    );
    expect(Object.keys(GENUINE).sort()).toEqual([...ACCEPTED_EXTENSIONS].sort());
  });

  it('reads the extension case-insensitively and refuses names without an accepted one', () => {
    expect(extensionOf('Foto.JPG')).toBe('jpg');
    expect(extensionOf('relatório final.pdf')).toBe('pdf');
    expect(extensionOf('sem-extensao')).toBeNull();
    expect(acceptedKindFor(extensionOf('setup.exe'))).toBeNull();
    expect(acceptedKindFor(extensionOf('notas.txt'))).toBeNull();
    expect(acceptedKindFor(null)).toBeNull();
  });

  it.each(Object.entries(GENUINE))('recognizes a genuine .%s by its bytes', (extension, head) => {
    expect(checkSignature(kind(extension), padded(head))).toEqual({ matches: true });
  });

  it.each([
    ['png', GENUINE.pdf, 'pdf'],
    ['jpg', GENUINE.png, 'png'],
    ['mp4', GENUINE.avi, 'avi'],
    ['mp3', GENUINE.wav, 'wav'],
    ['pdf', hex('4d5a90000300000004000000ffff0000'), 'exe'],
    ['xlsx', GENUINE.docx, 'word (Office Open XML)'],
    ['docx', GENUINE.xlsx, 'spreadsheet (Office Open XML)'],
    ['docx', zip(['mimetype', 'content.xml']), 'zip'],
    ['mp4', ftyp('heic'), 'heif'],
  ])('refuses a .%s whose bytes are something else', (extension, head, detected) => {
    expect(checkSignature(kind(extension), padded(head))).toEqual({ matches: false, detected });
  });

  it.each([
    ['plain text', ascii('Olá, isto é só texto.\n')],
    ['an empty file', Buffer.alloc(0)],
  ])('refuses %s under any accepted name', (_label, bytes) => {
    for (const extension of ACCEPTED_EXTENSIONS) {
      expect(checkSignature(kind(extension), bytes)).toMatchObject({ matches: false });
    }
  });

  it('finds the Office package from the entry names in the head only', () => {
    expect(officePackageOf(zip(['[Content_Types].xml', 'docProps/app.xml']))).toBe('unknown');
    expect(officePackageOf(zip(['ppt/presentation.xml']))).toBe('presentation');
    expect(officePackageOf(zip(['a.txt']))).toBeNull();
    // A header cut off at the end of the head is not read past the buffer.
    expect(officePackageOf(zip(['word/document.xml']).subarray(0, 33))).toBeNull();
  });
});
