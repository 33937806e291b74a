import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type request from 'supertest';
import { campaignBody, connectedInstance } from '../../support/campaigns';
import { countRows } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { freePort } from '../../support/media';
import { TestCompany } from '../../support/test-app';

/**
 * A media host on 127.0.0.1: `/foto.jpg` is the file; `/go?to=<url>` answers 302 to `url`;
 * `/loop` redirects to itself. It records each request's URL and Range header.
 */
class MediaHost {
  private server?: Server;
  readonly requests: string[] = [];

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.requests.push(`${req.url} ${req.headers.range}`);
      const url = new URL(req.url ?? '/', 'http://host');
      if (url.pathname === '/go') {
        res.writeHead(302, { Location: url.searchParams.get('to') ?? '/' }).end();
      } else if (url.pathname === '/loop') {
        res.writeHead(301, { Location: '/loop' }).end();
      } else {
        res.writeHead(206, { 'Content-Type': 'image/jpeg' }).end(Buffer.from([0xff]));
      }
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}${path}`;
  }

  redirectTo(target: string, name = 'foto.jpg'): string {
    return this.url(`/go?to=${encodeURIComponent(target)}&n=${name}`);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/**
 * A media URL is what the gateway will fetch, redirects and all: creation follows it hop by
 * hop through the outbound target check, and refuses what it cannot check.
 */
describe('media URLs: what the gateway would fetch is checked at creation', () => {
  const host = new MediaHost();
  const { t, fake } = useE2eFixture({ servers: [host] });

  function create(company: TestCompany, mediaUrl: string): request.Test {
    return company.post(
      '/api/campaigns',
      campaignBody(fake, connectedInstance(fake), { mediaUrl, mediaType: 'image' }),
    );
  }

  it.each([
    [
      'a redirect to the metadata address',
      () => host.redirectTo('http://169.254.169.254/latest/meta-data/foto.jpg'),
      /mediaUrl=redireciona para um endereço de rede não permitido/,
    ],
    [
      'a relative redirect, then one to a link-local IPv6 address',
      () => host.redirectTo(`/go?to=${encodeURIComponent('http://[fe80::1]/foto.jpg')}`),
      /mediaUrl=redireciona para um endereço de rede não permitido/,
    ],
    [
      'a redirect to something other than http(s)',
      () => host.redirectTo('file:///etc/passwd'),
      /mediaUrl=leva a uma URL que não é http\(s\)/,
    ],
    ['endless redirects', () => host.url('/loop?n=foto.jpg'), /mediaUrl=redireciona mais de 5/],
    [
      'a name that does not resolve',
      () => 'https://midia.nao-existe.invalid/foto.jpg',
      /mediaUrl=o nome do host não resolve/,
    ],
    [
      'a redirect to a name that does not resolve',
      () => host.redirectTo('https://midia.nao-existe.invalid/foto.jpg'),
      /mediaUrl=redireciona para um host cujo nome não resolve/,
    ],
  ])('refuses %s with 400 naming mediaUrl, creating nothing', async (_label, url, message) => {
    const company = await TestCompany.register(t.http);
    const response = await create(company, url());
    expect(expectErrorBody(response, 400, '/api/campaigns')).toMatch(message);
    expect(await countRows('campaigns', 'company_id = $1', [company.id])).toBe(0);
  });

  it('refuses a port nothing answers on, in the words it uses for any unreachable host', async () => {
    const company = await TestCompany.register(t.http);
    const closed = `http://127.0.0.1:${await freePort()}/foto.jpg`;
    const response = await create(company, closed);
    expect(expectErrorBody(response, 400, '/api/campaigns')).toBe(
      '{mediaUrl=não pôde ser acessada para verificar o que o gateway baixaria; confira a URL e tente de novo}',
    );
  });

  it('accepts a URL whose redirects end at a file, asking for its first byte only', async () => {
    const company = await TestCompany.register(t.http);
    const before = host.requests.length;
    const response = await create(company, host.redirectTo('/foto.jpg')).expect(200);
    expect(response.body).toMatchObject({ type: 'MEDIA', mediaType: 'image' });
    expect(host.requests.slice(before)).toEqual([
      expect.stringMatching(/^\/go\?.* bytes=0-0$/),
      '/foto.jpg bytes=0-0',
    ]);
  });
});
