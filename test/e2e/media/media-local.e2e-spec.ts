import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import {
  docxBytes,
  jpegBytes,
  mp4Header,
  pdfBytes,
  pngImage,
  uploadGenerated,
} from '../../support/media';
import { TestApp } from '../../support/test-app';

const MB = 1024 * 1024;
const LOCAL_NAME =
  /^(\d+)-(\d{8})-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.([a-z0-9]+)$/;
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** GET over a raw socket, so that the path reaches the server exactly as written (no normalizing). */
function rawGet(baseUrl: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${baseUrl}/`, { method: 'GET', path }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

describe('media through local storage', () => {
  const {
    t,
    companies: [company],
  } = useE2eFixture({ publicBaseUrl: true, companies: 1 });
  let mediaDir: string;
  beforeAll(() => {
    mediaDir = join(t.config.dataDir, 'media');
  });

  const storedFiles = (): string[] => (existsSync(mediaDir) ? readdirSync(mediaDir) : []);

  const postUpload = (): ReturnType<TestApp['http']['post']> =>
    t.http.post('/media/upload').set(company.auth);

  describe('uploads', () => {
    it('stores an image under DATA_DIR/media and answers 201 with its public URL', async () => {
      const image = pngImage(3);
      const response = await postUpload()
        .attach('file', image, { filename: 'Promoção de Verão.png', contentType: 'image/png' })
        .expect(201);
      const body = response.body as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual([
        'bucket',
        'filename',
        'objectName',
        'size',
        'type',
        'url',
      ]);
      expect(body).toMatchObject({
        filename: 'Promoção de Verão.png',
        size: image.length,
        type: 'image/png',
        bucket: 'local',
      });
      const objectName = body.objectName as string;
      const [, companyId, day, extension] = LOCAL_NAME.exec(objectName) ?? [];
      expect(Number(companyId)).toBe(company.id);
      expect(day).toBe(new Date().toISOString().slice(0, 10).replace(/-/g, ''));
      expect(extension).toBe('png');
      expect(body.url).toBe(`${t.baseUrl}/media/files/${objectName}`);
      expect(readFileSync(join(mediaDir, objectName)).equals(image)).toBe(true);
    });

    it('gives every upload its own name, also for the same file', async () => {
      const bytes = pdfBytes();
      const names = await Promise.all(
        [1, 2, 3].map(async () => {
          const response = await postUpload()
            .attach('file', bytes, { filename: 'catalogo.pdf' })
            .expect(201);
          expect(response.body).toMatchObject({ type: 'application/pdf', size: bytes.length });
          return response.body.objectName as string;
        }),
      );
      expect(new Set(names).size).toBe(3);
    });

    it.each([
      ['foto.JPG', jpegBytes(), 'image/jpeg', 'jpg'],
      [
        'contrato.docx',
        docxBytes(),
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        'docx',
      ],
      ['video.mp4', Buffer.concat([mp4Header(), Buffer.alloc(4096, 7)]), 'video/mp4', 'mp4'],
    ])('accepts %s and stores it with its type', async (filename, bytes, type, extension) => {
      const response = await postUpload()
        .attach('file', bytes, { filename, contentType: 'application/octet-stream' })
        .expect(201);
      expect(response.body).toMatchObject({ filename, type, size: bytes.length });
      expect(response.body.objectName).toMatch(new RegExp(`\\.${extension}$`));
      expect(readFileSync(join(mediaDir, response.body.objectName)).equals(bytes)).toBe(true);
    });

    it('accepts a real spreadsheet written by exceljs', async () => {
      const { Workbook } = await import('exceljs');
      const workbook = new Workbook();
      workbook.addWorksheet('Contatos').addRow(['nome', 'telefone']);
      const bytes = Buffer.from(await workbook.xlsx.writeBuffer());
      const response = await postUpload()
        .attach('file', bytes, { filename: 'contatos.xlsx' })
        .expect(201);
      expect(response.body).toMatchObject({
        type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        size: bytes.length,
      });
    });

    it('streams a 100 MB video (exactly the limit) to disk', async () => {
      const size = 100 * MB;
      const answer = await uploadGenerated(t.baseUrl, {
        filename: 'institucional.mp4',
        head: mp4Header(),
        size,
        token: company.token,
      });
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({ size, type: 'video/mp4', bucket: 'local' });
      const stored = join(mediaDir, answer.body.objectName as string);
      const head = readFileSync(stored).subarray(0, mp4Header().length);
      expect(head.equals(mp4Header())).toBe(true);
      rmSync(stored);
    });
  });

  describe('bad uploads', () => {
    it('refuses a .png whose bytes are a PDF, and keeps nothing', async () => {
      const before = storedFiles();
      const response = await postUpload().attach('file', pdfBytes(), {
        filename: 'banner.png',
        contentType: 'image/png',
      });
      const message = expectErrorBody(response, 400, '/media/upload');
      expect(message).toContain('.png');
      expect(message).toContain('pdf');
      expect(storedFiles()).toEqual(before);
    });

    it.each([
      ['instalador.exe', Buffer.from('4d5a90000300000004000000ffff0000', 'hex'), '.exe'],
      ['leia-me.txt', Buffer.from('apenas texto\n'), '.txt'],
      ['sem-extensao', pngImage(), 'extensão'],
    ])('refuses %s, a kind that is not accepted', async (filename, bytes, mentioned) => {
      const response = await postUpload().attach('file', bytes, { filename });
      expect(expectErrorBody(response, 400)).toContain(mentioned);
    });

    it('refuses text renamed to an accepted extension', async () => {
      const response = await postUpload().attach('file', Buffer.from('isto não é um vídeo'), {
        filename: 'video.mp4',
      });
      expect(expectErrorBody(response, 400)).toContain('não corresponde');
    });

    it('answers 413 one byte past 100 MB, and removes what was written', async () => {
      const before = storedFiles();
      const answer = await uploadGenerated(t.baseUrl, {
        filename: 'grande-demais.mp4',
        head: mp4Header(),
        size: 100 * MB + 1,
        token: company.token,
      });
      expect(answer.status).toBe(413);
      expect(answer.body).toMatchObject({
        status: 413,
        error: 'Payload Too Large',
        path: '/media/upload',
      });
      expect(answer.body.message).toContain('100 MB');
      expect(storedFiles()).toEqual(before);
    });

    it('answers 413 at once when the declared length is already past the limit', async () => {
      const answer = await uploadGenerated(t.baseUrl, {
        filename: 'grande.mp4',
        head: mp4Header(),
        size: 300 * MB,
        token: company.token,
        contentLength: 'exact',
        stopAfterBytes: 64 * 1024,
      });
      expect(answer.status).toBe(413);
      expect(answer.body.status).toBe(413);
    });

    it('refuses a request without the file', async () => {
      const response = await postUpload().field('nome', 'banner');
      expect(expectErrorBody(response, 400)).toContain('"file"');
    });

    it('refuses a file sent under another field name', async () => {
      const response = await postUpload().attach('arquivo', pngImage(), { filename: 'banner.png' });
      const message = expectErrorBody(response, 400);
      expect(message).toContain('"file"');
      expect(message).toContain('"arquivo"');
    });

    it('refuses a body that is not multipart', async () => {
      const response = await company.post('/media/upload', { file: 'banner.png' });
      expect(expectErrorBody(response, 400)).toContain('multipart/form-data');
    });

    it('refuses a multipart body cut off in the middle of the file, and keeps nothing', async () => {
      const before = storedFiles();
      const boundary = 'corte';
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n`,
        ),
        pngImage(),
      ]);
      const response = await postUpload()
        .set('Content-Type', `multipart/form-data; boundary=${boundary}`)
        .send(body);
      expectErrorBody(response, 400);
      expect(storedFiles()).toEqual(before);
    });

    it('needs the access token (401)', async () => {
      const response = await t.http
        .post('/media/upload')
        .attach('file', pngImage(), { filename: 'a.png' });
      expectErrorBody(response, 401, '/media/upload');
    });
  });

  it('documents both routes in the OpenAPI description', async () => {
    const { paths } = (await t.http.get('/api/docs-json').expect(200)).body;
    const upload = paths['/media/upload'].post;
    expect(Object.keys(upload.requestBody.content)).toEqual(['multipart/form-data']);
    expect(upload.requestBody.content['multipart/form-data'].schema.required).toEqual(['file']);
    expect(Object.keys(upload.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '413']),
    );
    const file = paths['/media/files/{filename}'].get;
    expect(Object.keys(file.responses)).toEqual(
      expect.arrayContaining(['200', '206', '304', '404', '416']),
    );
    expect(file.security ?? []).toEqual([]);
  });

  describe('GET /media/files/{filename}', () => {
    let objectName: string;
    let bytes: Buffer;

    beforeAll(async () => {
      bytes = Buffer.concat([
        mp4Header(),
        Buffer.from(Array.from({ length: 5000 }, (_v, i) => i % 251)),
      ]);
      const response = await postUpload()
        .attach('file', bytes, { filename: 'clipe.mp4' })
        .expect(201);
      objectName = response.body.objectName;
    });

    it('serves the file publicly with its type, length, validators and a year of immutable caching', async () => {
      const response = await t.http
        .get(`/media/files/${objectName}`)
        .buffer(true)
        .parse(binary)
        .expect(200);
      expect(sha256(response.body as Buffer)).toBe(sha256(bytes));
      expect(response.headers['content-type']).toBe('video/mp4');
      expect(response.headers['content-length']).toBe(String(bytes.length));
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(response.headers['accept-ranges']).toBe('bytes');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers.etag).toBeTruthy();
      expect(new Date(response.headers['last-modified']).getTime()).not.toBeNaN();
    });

    it('answers a byte range with 206 and Content-Range', async () => {
      const response = await t.http
        .get(`/media/files/${objectName}`)
        .set('Range', 'bytes=100-199')
        .buffer(true)
        .parse(binary)
        .expect(206);
      expect(response.headers['content-range']).toBe(`bytes 100-199/${bytes.length}`);
      expect(response.headers['content-length']).toBe('100');
      expect((response.body as Buffer).equals(bytes.subarray(100, 200))).toBe(true);
      const tail = await t.http
        .get(`/media/files/${objectName}`)
        .set('Range', 'bytes=-10')
        .buffer(true)
        .parse(binary)
        .expect(206);
      expect((tail.body as Buffer).equals(bytes.subarray(bytes.length - 10))).toBe(true);
    });

    it('answers an unsatisfiable range with 416, the size and the error body', async () => {
      const response = await t.http
        .get(`/media/files/${objectName}`)
        .set('Range', `bytes=${bytes.length + 10}-`);
      expectErrorBody(response, 416, `/media/files/${objectName}`);
      expect(response.headers['content-range']).toBe(`bytes */${bytes.length}`);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
    });

    it('answers HEAD with the headers and no body', async () => {
      const response = await t.http.head(`/media/files/${objectName}`).expect(200);
      expect(response.headers['content-length']).toBe(String(bytes.length));
      expect(response.headers['content-type']).toBe('video/mp4');
      expect(response.text ?? '').toBe('');
    });

    it('answers a conditional GET with 304 when the ETag matches', async () => {
      const first = await t.http.get(`/media/files/${objectName}`).expect(200);
      await t.http
        .get(`/media/files/${objectName}`)
        .set('If-None-Match', first.headers.etag)
        .expect(304);
    });

    it('answers 404 with the error body for a missing file', async () => {
      const missing = objectName.replace(/^\d+-/, '999999-');
      const response = await t.http.get(`/media/files/${missing}`);
      expectErrorBody(response, 404, `/media/files/${missing}`);
    });

    it('never leaves the media directory, whatever the name', async () => {
      // A secret in DATA_DIR, one level above media/, and a file that is not a stored name.
      writeFileSync(join(t.config.dataDir, 'segredo.png'), pngImage());
      writeFileSync(join(mediaDir, 'outro.png'), pngImage());
      for (const path of [
        '/media/files/..%2Fencryption-key',
        '/media/files/..%2Fsegredo.png',
        '/media/files/%2E%2E%2Fsegredo.png',
        '/media/files/..%252Fsegredo.png',
        '/media/files/..%5Csegredo.png',
        '/media/files/outro.png',
        `/media/files/${objectName}%00.png`,
        `/media/files/.${objectName}.part`,
      ]) {
        const response = await rawGet(t.baseUrl, path);
        expect({ path, status: response.status }).toEqual({ path, status: 404 });
        expect(JSON.parse(response.body)).toMatchObject({ status: 404 });
      }
      const raw = await rawGet(t.baseUrl, '/media/files/../../encryption-key');
      expect(raw.status).toBe(404);
      expect(raw.body).not.toContain(
        readFileSync(join(t.config.dataDir, 'encryption-key'), 'utf8').trim(),
      );
    });
  });
});

/** supertest parser that keeps the body as bytes (the response is superagent's stream). */
function binary(response: any, callback: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  response.on('data', (chunk: Buffer) => chunks.push(chunk));
  response.on('end', () => callback(null, Buffer.concat(chunks)));
}
