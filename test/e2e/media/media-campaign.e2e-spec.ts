import { campaignBody, connectedInstance, waitForCampaign } from '../../support/campaigns';
import { useE2eFixture } from '../../support/e2e-fixture';
import { pngImage } from '../../support/media';
import { TestCompany } from '../../support/test-app';

describe('uploaded media in campaigns', () => {
  // PUBLIC_BASE_URL must reach this very server.
  const { t, fake } = useE2eFixture({ publicBaseUrl: true, noRefusals: true });

  it('sends an uploaded image to every contact as its bytes, and its public URL serves the same bytes', async () => {
    const company = await TestCompany.register(t.http);
    const gateway = connectedInstance(fake);
    const image = pngImage(8, [0, 160, 80]);
    const uploaded = (
      await t.http
        .post('/media/upload')
        .set(company.auth)
        .attach('file', image, { filename: 'oferta.png', contentType: 'image/png' })
        .expect(201)
    ).body as { url: string; objectName: string };
    expect(uploaded.url).toBe(`${t.baseUrl}/media/files/${uploaded.objectName}`);

    const campaign = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gateway, {
            mediaUrl: uploaded.url,
            caption: 'Oferta para {PrimeiroNome}',
          }),
        )
        .expect(200)
    ).body;
    expect(campaign).toMatchObject({ type: 'MEDIA', mediaType: 'image', mediaUrl: uploaded.url });
    await waitForCampaign(company, campaign.id, (c) => c.status === 'COMPLETED');

    const sends = fake.sent.filter((s) => s.instance === gateway.instance);
    expect(sends).toHaveLength(3);
    for (const send of sends) {
      expect(send.endpoint).toBe('sendMedia');
      // A gateway often cannot reach PUBLIC_BASE_URL: our own media go out as base64.
      expect(send.body).toMatchObject({
        mediatype: 'image',
        mimetype: 'image/png',
        media: image.toString('base64'),
      });
    }
    expect(sends.map((s) => s.body.caption).sort()).toEqual(
      ['Oferta para João', 'Oferta para Maria', 'Oferta para '].sort(),
    );

    // The URL in the campaign still serves the same bytes, without any token.
    const fetched = await fetch(uploaded.url);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await fetched.arrayBuffer()).equals(image)).toBe(true);
  });
});
