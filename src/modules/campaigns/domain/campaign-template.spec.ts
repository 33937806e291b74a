import { templateFieldProblems } from './message-variants';
import { CampaignTemplate, TemplateOnAccount, templateProblems } from './campaign-template';

const TEMPLATE: CampaignTemplate = {
  name: 'oferta',
  language: 'pt_BR',
  bodyParameters: ['{PrimeiroNome}', '{cidade}', 'texto fixo'],
  headerMedia: null,
};

const ON_ACCOUNT: TemplateOnAccount = {
  status: 'APPROVED',
  bodyParameters: 3,
  headerParameters: 0,
  headerFormat: null,
};

const IMAGE = { mediaType: 'image' as const, url: 'https://cdn.example.com/a.png' };

describe('a template as the business account has it', () => {
  it.each<[string, CampaignTemplate, TemplateOnAccount | null, Array<[string, string]>]>([
    ['approved, its parameters and no header: sendable', TEMPLATE, ON_ACCOUNT, []],
    [
      'not found by name and language',
      TEMPLATE,
      null,
      [['template.name', 'modelo não encontrado na conta da API oficial (nome e idioma)']],
    ],
    [
      'not approved',
      TEMPLATE,
      { ...ON_ACCOUNT, status: 'PAUSED' },
      [['template.name', 'o modelo não está aprovado pela Meta (status PAUSED)']],
    ],
    [
      'named parameters',
      TEMPLATE,
      { ...ON_ACCOUNT, namedParameters: true },
      [
        [
          'template.name',
          'modelos com parâmetros nomeados ({{nome}}) ainda não são enviados: use um modelo de parâmetros numerados ({{1}})',
        ],
      ],
    ],
    [
      'the wrong number of body parameters',
      { ...TEMPLATE, bodyParameters: ['{PrimeiroNome}'] },
      ON_ACCOUNT,
      [['template.bodyParameters', 'o modelo tem 3 parâmetro(s) no corpo; foram informados 1']],
    ],
    [
      'header media missing',
      TEMPLATE,
      { ...ON_ACCOUNT, headerFormat: 'IMAGE' },
      [['template.headerMedia', 'é obrigatória: o cabeçalho do modelo é image']],
    ],
    [
      'header media of the wrong kind',
      { ...TEMPLATE, headerMedia: { ...IMAGE, mediaType: 'video' } },
      { ...ON_ACCOUNT, headerFormat: 'IMAGE' },
      [['template.headerMedia.mediaType', 'deve ser image: o cabeçalho do modelo é image']],
    ],
    [
      'header media the template does not ask for',
      { ...TEMPLATE, headerMedia: IMAGE },
      ON_ACCOUNT,
      [['template.headerMedia', 'o modelo não tem cabeçalho de mídia']],
    ],
    [
      'header media of the right kind',
      { ...TEMPLATE, headerMedia: IMAGE },
      { ...ON_ACCOUNT, headerFormat: 'IMAGE' },
      [],
    ],
    [
      'a text header with parameters, which this service does not fill',
      TEMPLATE,
      { ...ON_ACCOUNT, headerFormat: 'TEXT', headerParameters: 1 },
      [
        [
          'template',
          'modelos com parâmetros no cabeçalho de texto ou de localização não são suportados',
        ],
      ],
    ],
  ])('%s', (_name, template, found, problems) => {
    expect(templateProblems(template, found)).toEqual(problems);
  });
});

describe("a template's body parameters as written", () => {
  it('names each parameter whose variants do not parse, by its place', () => {
    const problems = templateFieldProblems(
      { template: { bodyParameters: ['{PrimeiroNome}', '{Olá|Oi', 'fixo', '{}'] } },
      'messageConfig.',
    );
    expect(problems.map(([field]) => field)).toEqual([
      'messageConfig.template.bodyParameters[1]',
      'messageConfig.template.bodyParameters[3]',
    ]);
  });
});
