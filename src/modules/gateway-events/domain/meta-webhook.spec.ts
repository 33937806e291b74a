import { ValidationFailedError } from '../../../common/errors/domain-error';
import { parseMetaWebhook } from './meta-webhook';

const NOW = new Date();
const SECONDS = Math.floor(NOW.getTime() / 1000) - 60;
const metadata = { display_phone_number: '15550783881', phone_number_id: '106540352242922' };

function body(changes: unknown[]): Record<string, unknown> {
  return {
    object: 'whatsapp_business_account',
    entry: [{ id: '102290129340398', time: SECONDS, changes }],
  };
}

describe('parseMetaWebhook', () => {
  it('reads statuses as the receipts Evolution would send, with code, title, callback and pricing', () => {
    const [failed, read] = parseMetaWebhook(
      body([
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata,
            statuses: [
              {
                id: 'wamid.A',
                status: 'failed',
                timestamp: String(SECONDS),
                recipient_id: '5511987001001',
                biz_opaque_callback_data: '4211',
                errors: [{ code: 131026, title: 'Message undeliverable' }],
              },
              {
                id: 'wamid.B',
                status: 'read',
                timestamp: String(SECONDS),
                biz_opaque_callback_data: 'campanha-x',
                pricing: { billable: true, pricing_model: 'PMP', category: 'marketing' },
              },
              { id: 'wamid.C', status: 'deleted', timestamp: String(SECONDS) },
            ],
          },
        },
      ]),
      NOW,
    );
    expect(failed).toEqual({
      event: 'messages.update',
      phoneNumberId: '106540352242922',
      at: new Date(SECONDS * 1000),
      data: expect.objectContaining({
        keyId: 'wamid.A',
        fromMe: true,
        status: 'ERROR',
        code: '131026',
        title: 'Message undeliverable',
        contactId: '4211',
        cloud: true,
      }),
    });
    expect(read.data).toMatchObject({ status: 'READ', billable: true, category: 'marketing' });
    expect(read.data.contactId).toBeUndefined();
  });

  it('reads people’s messages of every kind that carries words as Evolution’s messages.upsert', () => {
    const message = (extra: Record<string, unknown>) => ({
      from: '5511987001001',
      id: 'wamid.IN',
      timestamp: String(SECONDS),
      ...extra,
    });
    const rows = parseMetaWebhook(
      body([
        {
          field: 'messages',
          value: {
            metadata,
            messages: [
              message({ type: 'text', text: { body: 'Sair' } }),
              message({ type: 'button', button: { text: 'Parar promoções', payload: 'STOP' } }),
              message({
                type: 'interactive',
                interactive: { button_reply: { id: '1', title: 'Sim' } },
              }),
              message({ type: 'image', image: { id: '1', caption: 'Esta aqui?' } }),
              message({ type: 'sticker', sticker: { id: '2' } }),
            ],
          },
        },
      ]),
      NOW,
    );
    expect(rows.map((row) => row.data)).toEqual(
      ['Sair', 'Parar promoções', 'Sim', 'Esta aqui?', undefined].map((conversation) => ({
        key: { fromMe: false, remoteJid: '5511987001001@s.whatsapp.net' },
        message: { conversation },
      })),
    );
  });

  it('reads template and quality changes with their business account', () => {
    const [template, quality] = parseMetaWebhook(
      body([
        {
          field: 'message_template_status_update',
          value: {
            event: 'PAUSED',
            message_template_id: 1,
            message_template_name: 'promo_novembro',
            message_template_language: 'pt_BR',
            reason: 'NONE',
          },
        },
        {
          field: 'phone_number_quality_update',
          value: {
            display_phone_number: '+55 11 3003-0001',
            event: 'FLAGGED',
            current_limit: 'TIER_1K',
          },
        },
        { field: 'account_alerts', value: { anything: true } },
      ]),
      NOW,
    );
    expect(template).toMatchObject({
      event: 'template.status',
      phoneNumberId: null,
      data: {
        status: 'PAUSED',
        name: 'promo_novembro',
        language: 'pt_BR',
        businessAccountId: '102290129340398',
      },
    });
    expect(quality.data).toMatchObject({
      displayPhoneNumber: '551130030001',
      event: 'FLAGGED',
      currentLimit: 'TIER_1K',
      businessAccountId: '102290129340398',
    });
  });

  it('ignores other objects and refuses what is not Meta’s shape, naming the fields', () => {
    expect(parseMetaWebhook({ object: 'page', entry: [] }, NOW)).toEqual([]);
    const refused = (value: unknown): string => {
      try {
        parseMetaWebhook(value, NOW);
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationFailedError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused([])).toContain('entry=');
    expect(
      refused(
        body([
          {
            field: 'messages',
            value: {
              metadata: {},
              statuses: [
                { id: 7, status: 'read', timestamp: '2999999999', errors: [{ code: 'x' }] },
              ],
            },
          },
        ]),
      ),
    ).toEqual(
      expect.stringMatching(
        /metadata\.phone_number_id=.*statuses\[0\]\.id=.*statuses\[0\]\.timestamp=.*errors\[0\]\.code=/,
      ),
    );
  });
});
