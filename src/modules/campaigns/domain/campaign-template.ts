/**
 * The approved Cloud API message template a campaign sends, as the company wrote it: its
 * parameters may hold variables ({PrimeiroNome}, a database column), rendered per contact.
 */
export interface CampaignTemplate {
  name: string;
  /** The template's language code, e.g. pt_BR. */
  language: string;
  /** Positional body parameters, in the template's order. */
  bodyParameters: string[];
  /** The header's media, for a template whose header is an image, a video or a document. */
  headerMedia: { mediaType: 'image' | 'video' | 'document'; url: string } | null;
}

/** What the business account says of a template (the gateway module's GatewayTemplate). */
export interface TemplateOnAccount {
  /** Only APPROVED templates can be sent. */
  status: string;
  /** How many parameters its body has. */
  bodyParameters: number;
  /** How many text parameters its header has. */
  headerParameters: number;
  headerFormat: 'TEXT' | 'IMAGE' | 'VIDEO' | 'DOCUMENT' | 'LOCATION' | null;
  /** Its body's parameters are named ({{first_name}}), which the service does not send yet. */
  namedParameters?: boolean;
}

const MEDIA_HEADERS: Record<string, 'image' | 'video' | 'document'> = {
  IMAGE: 'image',
  VIDEO: 'video',
  DOCUMENT: 'document',
};

/**
 * Why `template` cannot be sent as the account has it, as field errors (docs/API-RULES.md,
 * "Template campaigns"): not found (name and language), not APPROVED, another number of body
 * parameters, header media missing, of another kind or not asked for, or a header this service
 * does not fill (text parameters, a location). Meta's templates reference:
 * developers.facebook.com/documentation/business-messaging/whatsapp/templates/
 */
const NAMED_PARAMETERS_REFUSED =
  'modelos com parâmetros nomeados ({{nome}}) ainda não são enviados: use um modelo de parâmetros numerados ({{1}})';

export function templateProblems(
  template: CampaignTemplate,
  found: TemplateOnAccount | null,
): Array<[field: string, message: string]> {
  if (!found) {
    return [['template.name', 'modelo não encontrado na conta da API oficial (nome e idioma)']];
  }
  if (found.status !== 'APPROVED') {
    return [['template.name', `o modelo não está aprovado pela Meta (status ${found.status})`]];
  }
  if (found.namedParameters) {
    return [['template.name', NAMED_PARAMETERS_REFUSED]];
  }
  const errors: Array<[string, string]> = [];
  if (template.bodyParameters.length !== found.bodyParameters) {
    errors.push([
      'template.bodyParameters',
      `o modelo tem ${found.bodyParameters} parâmetro(s) no corpo; foram informados ${template.bodyParameters.length}`,
    ]);
  }
  const problem = headerProblem(template, found);
  if (problem) {
    errors.push(problem);
  }
  return errors;
}

function headerProblem(
  template: CampaignTemplate,
  found: TemplateOnAccount,
): [string, string] | null {
  const expected = found.headerFormat ? MEDIA_HEADERS[found.headerFormat] : undefined;
  if (found.headerFormat === 'LOCATION' || found.headerParameters > 0) {
    return [
      'template',
      'modelos com parâmetros no cabeçalho de texto ou de localização não são suportados',
    ];
  }
  if (!expected) {
    return template.headerMedia
      ? ['template.headerMedia', 'o modelo não tem cabeçalho de mídia']
      : null;
  }
  if (!template.headerMedia) {
    return ['template.headerMedia', `é obrigatória: o cabeçalho do modelo é ${expected}`];
  }
  return template.headerMedia.mediaType === expected
    ? null
    : [
        'template.headerMedia.mediaType',
        `deve ser ${expected}: o cabeçalho do modelo é ${expected}`,
      ];
}
