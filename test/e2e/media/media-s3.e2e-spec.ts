import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { freePort, mp4Header, pdfBytes, pngImage, uploadGenerated } from '../../support/media';
import { TestS3Server } from '../../support/s3-server';
import { startTestApp, TestCompany } from '../../support/test-app';

const MB = 1024 * 1024;
const S3_NAME =
  /^companies\/(\d+)\/(\d{4})\/(\d{2})\/(\d{2})\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.([a-z0-9]+)$/;
const sha256 = (bytes: Buffer | Uint8Array): string =>
  createHash('sha256').update(bytes).digest('hex');

async function fetchBytes(
  url: string,
): Promise<{ status: number; type: string | null; body: Buffer }> {
  const response = await fetch(url);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: Buffer.from(await response.arrayBuffer()),
  };
}

describe('media through S3-compatible storage', () => {
  let s3: TestS3Server;
  // Before the fixture's: the app's environment names the server.
  beforeAll(async () => {
    s3 = await TestS3Server.start();
  });
  const {
    t,
    companies: [company],
  } = useE2eFixture({ env: () => s3.env(), companies: 1 });
  afterAll(async () => {
    await s3.stop();
  });

  it('streams an image into the bucket under companies/{id}/{yyyy}/{MM}/{dd}/{uuid}.{ext}', async () => {
    const image = pngImage(4, [10, 120, 240]);
    const response = await t.http
      .post('/media/upload')
      .set(company.auth)
      .attach('file', image, { filename: 'logo da loja.png', contentType: 'image/png' })
      .expect(201);
    const body = response.body as Record<string, any>;
    expect(body).toMatchObject({
      filename: 'logo da loja.png',
      size: image.length,
      type: 'image/png',
      bucket: s3.bucket,
    });
    const [, companyId, yyyy, mm, dd, extension] = S3_NAME.exec(body.objectName) ?? [];
    expect(Number(companyId)).toBe(company.id);
    expect(`${yyyy}-${mm}-${dd}`).toBe(new Date().toISOString().slice(0, 10));
    expect(extension).toBe('png');
    // Path-style endpoint without S3_PUBLIC_BASE_URL: the URL is the object's own on the endpoint.
    expect(body.url).toBe(`${s3.endpoint}/${s3.bucket}/${body.objectName}`);

    const stored = await s3.object(body.objectName);
    expect(stored.body.equals(image)).toBe(true);
    expect(stored.contentType).toBe('image/png');
    expect(stored.cacheControl).toBe('public, max-age=31536000, immutable');

    const fetched = await fetchBytes(body.url);
    expect(fetched.status).toBe(200);
    expect(fetched.type).toBe('image/png');
    expect(fetched.body.equals(image)).toBe(true);
    // Nothing went to the local directory.
    const localDir = join(t.config.dataDir, 'media');
    expect(existsSync(localDir) ? readdirSync(localDir) : []).toEqual([]);
  });

  it('streams a 12 MB video as a multipart upload and reassembles it byte for byte', async () => {
    const size = 12 * MB + 12345;
    const answer = await uploadGenerated(t.baseUrl, {
      filename: 'depoimento.mp4',
      head: mp4Header(),
      size,
      token: company.token,
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ size, type: 'video/mp4', bucket: s3.bucket });
    expect(await s3.size(answer.body.objectName)).toBe(size);
    const fetched = await fetchBytes(answer.body.url);
    expect(fetched.status).toBe(200);
    expect(fetched.type).toBe('video/mp4');
    expect(fetched.body.length).toBe(size);
    expect(fetched.body.subarray(0, mp4Header().length).equals(mp4Header())).toBe(true);
    const expected = Buffer.alloc(size, 0x5a);
    mp4Header().copy(expected);
    expect(sha256(fetched.body)).toBe(sha256(expected));
  });

  it('answers 413 past 100 MB and leaves no object behind', async () => {
    const before = await s3.keys(`companies/${company.id}/`);
    const answer = await uploadGenerated(t.baseUrl, {
      filename: 'longo.mp4',
      head: mp4Header(),
      size: 100 * MB + 1,
      token: company.token,
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ status: 413, path: '/media/upload' });
    expect(await s3.keys(`companies/${company.id}/`)).toEqual(before);
  });

  it('refuses a wrong kind before anything reaches the bucket', async () => {
    const before = await s3.keys();
    const response = await t.http
      .post('/media/upload')
      .set(company.auth)
      .attach('file', pdfBytes(), { filename: 'foto.jpg' });
    expectErrorBody(response, 400);
    expect(await s3.keys()).toEqual(before);
  });

  it('still serves files kept in the local directory from before S3 was set up', async () => {
    const image = pngImage(2);
    const name = `${company.id}-20250101-0b5f3c1e-6a1d-4c1b-9a55-2f0c8d1e7a90.png`;
    mkdirSync(join(t.config.dataDir, 'media'), { recursive: true });
    writeFileSync(join(t.config.dataDir, 'media', name), image);
    const response = await t.http.get(`/media/files/${name}`).expect(200);
    expect(response.headers['content-type']).toBe('image/png');
    expect(Buffer.from(response.body as Buffer).equals(image)).toBe(true);
  });

  it('answers 503 with the error body when the store cannot be reached', async () => {
    const unreachable = await startTestApp(
      s3.env({ S3_ENDPOINT: `http://127.0.0.1:${await freePort()}` }),
    );
    try {
      const owner = await TestCompany.register(unreachable.http);
      const response = await unreachable.http
        .post('/media/upload')
        .set(owner.auth)
        .attach('file', pngImage(), { filename: 'banner.png' });
      expect(expectErrorBody(response, 503, '/media/upload')).toContain('armazenamento');
    } finally {
      await unreachable.close();
      rmSync(unreachable.config.dataDir, { recursive: true, force: true });
    }
  });

  it('builds URLs on S3_PUBLIC_BASE_URL when it is set', async () => {
    const publicBase = `${s3.endpoint}/${s3.bucket}/`;
    const other = await startTestApp(s3.env({ S3_PUBLIC_BASE_URL: publicBase }));
    try {
      const owner = await TestCompany.register(other.http);
      const response = await other.http
        .post('/media/upload')
        .set(owner.auth)
        .attach('file', pdfBytes('tabela'), { filename: 'tabela de preços.pdf' })
        .expect(201);
      expect(response.body.url).toBe(`${s3.endpoint}/${s3.bucket}/${response.body.objectName}`);
      expect(response.body.objectName).toMatch(new RegExp(`^companies/${owner.id}/`));
      const fetched = await fetchBytes(response.body.url);
      expect(fetched.status).toBe(200);
      expect(fetched.type).toBe('application/pdf');
      expect(fetched.body.equals(pdfBytes('tabela'))).toBe(true);
    } finally {
      await other.close();
      rmSync(other.config.dataDir, { recursive: true, force: true });
    }
  });
});
