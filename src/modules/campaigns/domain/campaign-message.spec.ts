import type { OutgoingMessage } from '../../../common/messaging/outgoing-message';
import type { CampaignContent } from './campaign.entity';
import { isBlankMessage, messagesForContact, sentTextOf, variantSeed } from './campaign-message';

const TEXT: CampaignContent = {
  type: 'TEXT',
  messageContent: null,
  mediaUrl: null,
  mediaType: null,
  fileName: null,
  caption: null,
  pollData: null,
  template: null,
};

const seedsOf = (count: number): string[] =>
  Array.from({ length: count }, (_v, i) => variantSeed(7, `55119${80000000 + i}`));

function textsFor(content: CampaignContent, name: string, values: Record<string, string> = {}) {
  return new Set(
    seedsOf(200).map((seed) => sentTextOf(messagesForContact(content, { name }, values, seed))),
  );
}

describe('messages for a contact, with variants', () => {
  it('draws the message’s variants, then fills the variables', () => {
    const content = { ...TEXT, messageContent: '{Olá|Oi|Bom dia} {PrimeiroNome}!' };
    expect([...textsFor(content, 'Ana Souza')].sort()).toEqual([
      'Bom dia Ana!',
      'Oi Ana!',
      'Olá Ana!',
    ]);
  });

  it('never reads a variable’s value as variants: the draw comes first', () => {
    const content = { ...TEXT, messageContent: '{Oi|Olá} {PrimeiroNome}: {cupom}' };
    const values = { cupom: '{A|B} | {C}' };
    expect([...textsFor(content, '{X|Y}', values)].sort()).toEqual([
      'Oi {X|Y}: {A|B} | {C}',
      'Olá {X|Y}: {A|B} | {C}',
    ]);
  });

  it('draws the same text for the same campaign and phone, whatever is asked again', () => {
    const content = { ...TEXT, messageContent: '{a|b|c|d|e|f|g|h} {1|2|3|4|5}' };
    const seed = variantSeed(7, '5511987650001');
    const first = messagesForContact(content, { name: '' }, {}, seed);
    for (let i = 0; i < 20; i += 1) {
      expect(messagesForContact(content, { name: '' }, {}, seed)).toEqual(first);
    }
    const others = new Set(
      Array.from({ length: 20 }, (_v, i) =>
        sentTextOf(
          messagesForContact(content, { name: '' }, {}, variantSeed(8 + i, '5511987650001')),
        ),
      ),
    );
    expect(others.size).toBeGreaterThan(1);
  });

  it('draws a caption’s variants, and the poll question’s but not its options', () => {
    const media: CampaignContent = {
      ...TEXT,
      type: 'MEDIA',
      messageContent: 'ignorada',
      mediaUrl: 'https://cdn.example.com/a.jpg',
      mediaType: 'image',
      caption: '{Oferta|Promoção} para {PrimeiroNome}',
    };
    expect([...textsFor(media, 'Ana')].sort()).toEqual(['Oferta para Ana', 'Promoção para Ana']);
    const poll: CampaignContent = {
      ...TEXT,
      type: 'POLL',
      pollData: { name: '{Qual|Que} horário?', options: ['{a|b}', 'Tarde'], selectableCount: 1 },
    };
    const messages = seedsOf(50).map((seed) => messagesForContact(poll, { name: '' }, {}, seed));
    expect(new Set(messages.map(sentTextOf))).toEqual(new Set(['Qual horário?', 'Que horário?']));
    for (const message of messages) {
      expect(message[0]).toMatchObject({ kind: 'poll', options: ['{a|b}', 'Tarde'] });
    }
  });

  it('tells the text sent: the text, the caption, the question, the text after a voice note', () => {
    const texts: Array<[OutgoingMessage[], string | null]> = [
      [[{ kind: 'text', text: 'Oi' }], 'Oi'],
      [
        [{ kind: 'media', mediaType: 'image', media: 'u', mimeType: 'image/jpeg', caption: 'C' }],
        'C',
      ],
      [[{ kind: 'media', mediaType: 'image', media: 'u', mimeType: 'image/jpeg' }], null],
      [[{ kind: 'poll', name: 'P?', options: ['a', 'b'], selectableCount: 1 }], 'P?'],
      [
        [
          { kind: 'audio', audio: 'u' },
          { kind: 'text', text: 'Depois' },
        ],
        'Depois',
      ],
      [[{ kind: 'audio', audio: 'u' }], null],
    ];
    for (const [messages, expected] of texts) {
      expect(sentTextOf(messages)).toBe(expected);
    }
  });
});

describe('a template campaign for one contact', () => {
  const TEMPLATE = {
    name: 'oferta',
    language: 'pt_BR',
    bodyParameters: ['{PrimeiroNome}', '{cidade}', 'texto fixo'],
    headerMedia: null,
  };
  const IMAGE = { mediaType: 'image' as const, url: 'https://cdn.example.com/a.png' };
  const content: CampaignContent = { ...TEXT, template: { ...TEMPLATE, headerMedia: IMAGE } };

  it('renders each body parameter like a message, the header media as written', () => {
    const [message] = messagesForContact(
      content,
      { name: 'Maria Souza' },
      { cidade: 'Recife' },
      's',
    );
    expect(message).toEqual<OutgoingMessage>({
      kind: 'template',
      name: 'oferta',
      language: 'pt_BR',
      bodyParameters: ['Maria', 'Recife', 'texto fixo'],
      headerMedia: { mediaType: 'image', link: 'https://cdn.example.com/a.png' },
    });
  });

  it('sends a parameter on one line, as Meta takes parameters', () => {
    const [message] = messagesForContact(
      content,
      { name: 'Maria' },
      { cidade: 'Rua A, 10\r\nApto 3\tFundos         (portão azul)' },
      's',
    );
    expect((message as { bodyParameters: string[] }).bodyParameters[1]).toBe(
      'Rua A, 10 Apto 3 Fundos    (portão azul)',
    );
  });

  it('draws variants in parameters, the same for the same seed', () => {
    const varied = {
      ...content,
      template: { ...TEMPLATE, bodyParameters: ['{Olá|Oi}', 'a', 'b'] },
    };
    const drawn = new Set(
      Array.from({ length: 40 }, (_, i) => {
        const [message] = messagesForContact(varied, { name: 'Ana' }, {}, `seed-${i}`);
        return message.kind === 'template' ? message.bodyParameters[0] : '';
      }),
    );
    expect([...drawn].sort()).toEqual(['Oi', 'Olá']);
    const again = messagesForContact(varied, { name: 'Ana' }, {}, 'seed-1');
    expect(again).toEqual(messagesForContact(varied, { name: 'Ana' }, {}, 'seed-1'));
  });

  it('is blank when a parameter has no value for the contact', () => {
    const [message] = messagesForContact(content, { name: 'Maria' }, { cidade: '' }, 's');
    expect(isBlankMessage(message)).toBe(true);
  });
});
