import { parseLocalDateTime } from '../../../common/time/local-date-time';
import { checkSendingWindow, SendingWindow } from '../../../common/time/sending-window';
import { normalizePhone } from '../../../common/phone/phone-number';
import type { CampaignMediaType, PollDefinition } from '../domain/campaign.entity';
import type { CampaignType } from '../domain/campaign-status';
import { detectMediaType, isDataUri } from '../domain/media-kind';
import { templateFieldProblems } from '../domain/message-variants';
import type { CampaignTemplate } from '../domain/campaign-template';
import type { GatewayProvider } from '../../gateway/domain/messaging-gateway';

export const DEFAULT_MIN_INTERVAL_SECONDS = 5;
export const DEFAULT_MAX_INTERVAL_SECONDS = 12;
export const SCHEDULING_LEAD_MS = 5 * 60 * 1000;
export const NO_VALID_CONTACT =
  'nenhum contato válido: informe ao menos 1 número de telefone válido';

export interface CampaignInput {
  isDraft?: boolean;
  warmFirst?: boolean;
  message?: string;
  mediaUrl?: string;
  mediaType?: CampaignMediaType;
  fileName?: string;
  caption?: string;
  pollData?: PollDefinition;
  /** A Cloud API template instead of a message (checked against the account by CampaignTemplateCheck). */
  template?: TemplateInput;
  scheduledFor?: string;
  intervalMinSeconds?: number;
  intervalMaxSeconds?: number;
  notificationPhone?: string;
  gatewayConfigId?: number;
  /** A pool of senders (domain/sender-pool.ts), instead of one. */
  gatewayConfigIds?: number[];
  gatewayUrl?: string;
  gatewayApiKey?: string;
  gatewayInstance?: string;
  sendingWindow?: SendingWindow;
  longPauseEvery?: number;
  longPauseSeconds?: number[];
}

/** A template as a person writes it: its parameters and header media optional. */
export interface TemplateInput {
  name: string;
  language: string;
  bodyParameters?: string[];
  headerMedia?: { mediaType: 'image' | 'video' | 'document'; url: string } | null;
}

/** The template as stored (campaigns.template), every part present. */
export function storedTemplateOf(input: TemplateInput | undefined): CampaignTemplate | null {
  if (!input) {
    return null;
  }
  return {
    name: input.name.trim(),
    language: input.language,
    bodyParameters: input.bodyParameters ?? [],
    headerMedia: input.headerMedia ?? null,
  };
}

/**
 * The pause range a campaign stores: the one given, else the defaults; on a Cloud API number
 * none, since Meta paces it by its throughput instead (domain/throughput-turns.ts): a pause
 * there is only ever a person's choice.
 */
export function storedIntervals(
  input: Pick<CampaignInput, 'intervalMinSeconds' | 'intervalMaxSeconds'>,
  checked: Pick<CheckedCampaignInput, 'minInterval' | 'maxInterval'>,
  provider: GatewayProvider | undefined,
): { minInterval: number; maxInterval: number } {
  const given = (input.intervalMinSeconds ?? input.intervalMaxSeconds ?? null) !== null;
  return provider === 'CLOUD_API' && !given
    ? { minInterval: 0, maxInterval: 0 }
    : { minInterval: checked.minInterval, maxInterval: checked.maxInterval };
}

/** A stored template as the input that would make it (an edit or a launch starts from it). */
export function templateInputOf(template: CampaignTemplate | null): TemplateInput | undefined {
  return template ? { ...template, headerMedia: template.headerMedia ?? undefined } : undefined;
}

/** Every `every` messages sent, a pause drawn in [minSeconds, maxSeconds]. */
export interface LongPause {
  every: number;
  minSeconds: number;
  maxSeconds: number;
}

export interface CheckedCampaignInput {
  type: CampaignType;
  mediaType: CampaignMediaType | null;
  scheduledFor: Date | null;
  minInterval: number;
  maxInterval: number;
  notificationPhone: string | null;
  sendingWindow: SendingWindow | null;
  longPause: LongPause | null;
}

export type FieldErrors = Array<[field: string, message: string]>;

/**
 * The cross-field rules of docs/API-RULES.md §4 that single-field decorators cannot express.
 * Returns the checked values, or the field errors to answer with.
 */
export function checkCampaignInput(
  input: CampaignInput,
  context: { now: Date; timezone: string; defaultCountryCode: number },
): { value: CheckedCampaignInput; errors: FieldErrors } {
  const errors: FieldErrors = [];
  const type: CampaignType = input.pollData ? 'POLL' : input.mediaUrl ? 'MEDIA' : 'TEXT';
  if (!input.pollData && !input.template && !input.isDraft && !input.message?.trim()) {
    errors.push(['message', 'é obrigatória (exceto para enquetes, modelos e rascunhos)']);
  }
  errors.push(...templateAloneProblems(input));
  if (input.pollData && input.mediaUrl) {
    errors.push(['mediaUrl', 'não pode ser usada junto com uma enquete']);
  }
  if (input.pollData && input.pollData.selectableCount > input.pollData.options.length) {
    errors.push(['pollData.selectableCount', 'não pode ser maior que o número de opções']);
  }
  errors.push(...templateFieldProblems(input));
  const mediaType = checkMedia(input, errors);
  checkGateway(input, errors);
  const scheduledFor = checkSchedule(input, context, errors);
  const minInterval = input.intervalMinSeconds ?? DEFAULT_MIN_INTERVAL_SECONDS;
  const maxInterval =
    input.intervalMaxSeconds ?? Math.max(DEFAULT_MAX_INTERVAL_SECONDS, minInterval);
  if (minInterval > maxInterval) {
    errors.push(['intervalMinSeconds', 'não pode ser maior que intervalMaxSeconds']);
  }
  let notificationPhone: string | null = null;
  if (input.notificationPhone !== undefined) {
    notificationPhone = normalizePhone(input.notificationPhone, context.defaultCountryCode);
    if (!notificationPhone) {
      errors.push(['notificationPhone', 'número de telefone inválido']);
    }
  }
  const sendingWindow = checkSendingWindow(input.sendingWindow, errors);
  const longPause = checkLongPause(input, errors);
  return {
    value: {
      type,
      mediaType,
      scheduledFor,
      minInterval,
      maxInterval,
      notificationPhone,
      sendingWindow,
      longPause,
    },
    errors,
  };
}

/** A template is the whole message: nothing else of a message goes with it. */
function templateAloneProblems(input: CampaignInput): FieldErrors {
  if (!input.template) {
    return [];
  }
  return (['message', 'mediaUrl', 'pollData'] as const)
    .filter((field) => input[field] !== undefined && input[field] !== null)
    .map((field) => [
      field,
      'não pode ser usado junto com template (o modelo aprovado é a mensagem; a mídia do cabeçalho vai em template.headerMedia)',
    ]);
}

function checkLongPause(input: CampaignInput, errors: FieldErrors): LongPause | null {
  const { longPauseEvery: every, longPauseSeconds: seconds } = input;
  if (every === undefined && seconds === undefined) {
    return null;
  }
  if (every === undefined || seconds === undefined) {
    errors.push([
      every === undefined ? 'longPauseEvery' : 'longPauseSeconds',
      'é obrigatório junto com ' + (every === undefined ? 'longPauseSeconds' : 'longPauseEvery'),
    ]);
    return null;
  }
  const [minSeconds, maxSeconds] = seconds;
  if (minSeconds > maxSeconds) {
    errors.push(['longPauseSeconds', 'o mínimo não pode ser maior que o máximo']);
    return null;
  }
  return { every, minSeconds, maxSeconds };
}

function checkMedia(input: CampaignInput, errors: FieldErrors): CampaignMediaType | null {
  if (!input.mediaUrl) {
    if (input.mediaType || input.caption || input.fileName) {
      errors.push([
        'mediaUrl',
        'é obrigatória quando mediaType, caption ou fileName são informados',
      ]);
    }
    return null;
  }
  if (!isDataUri(input.mediaUrl) && !isHttpUrl(input.mediaUrl)) {
    errors.push(['mediaUrl', 'deve ser uma URL http(s) ou um data URI base64']);
    return null;
  }
  const mediaType = input.mediaType ?? detectMediaType(input.mediaUrl, input.fileName);
  if (!mediaType) {
    errors.push([
      'mediaType',
      'não foi possível detectar o tipo da mídia; informe image, video, audio ou document',
    ]);
  }
  if (mediaType === 'audio' && input.caption) {
    errors.push(['caption', 'áudios não têm legenda; use message']);
  }
  return mediaType;
}

function checkGateway(input: CampaignInput, errors: FieldErrors): void {
  // null is no pool (the DTO lets it through as absent): one of the other forms is required.
  if (input.gatewayConfigIds !== undefined && input.gatewayConfigIds !== null) {
    const others = (
      ['gatewayConfigId', 'gatewayUrl', 'gatewayApiKey', 'gatewayInstance'] as const
    ).filter((field) => input[field] !== undefined);
    if (others.length > 0) {
      errors.push(['gatewayConfigIds', `não pode ser usado junto com ${others.join(', ')}`]);
    }
    return;
  }
  if (input.gatewayConfigId !== undefined) {
    return;
  }
  const missing = (['gatewayUrl', 'gatewayApiKey', 'gatewayInstance'] as const).filter(
    (f) => !input[f]?.trim(),
  );
  for (const field of missing) {
    errors.push([field, 'é obrigatório (ou informe gatewayConfigId)']);
  }
  const gatewayUrl = input.gatewayUrl?.trim();
  if (gatewayUrl && !isHttpUrl(gatewayUrl)) {
    errors.push(['gatewayUrl', 'deve ser uma URL http(s) completa']);
  } else if (gatewayUrl && /[?#]/.test(gatewayUrl)) {
    // The rules of a saved configuration's url (gateway-configs.dto.ts): routes are appended to
    // the base URL, so a query or fragment would be dropped silently.
    errors.push(['gatewayUrl', 'não pode conter parâmetros (?) nem fragmento (#)']);
  } else if (gatewayUrl && hasCredentials(gatewayUrl)) {
    errors.push(['gatewayUrl', 'não pode conter usuário ou senha']);
  }
}

function checkSchedule(
  input: CampaignInput,
  context: { now: Date; timezone: string },
  errors: FieldErrors,
): Date | null {
  if (input.scheduledFor === undefined) {
    return null;
  }
  const scheduledFor = parseLocalDateTime(input.scheduledFor, context.timezone);
  if (!scheduledFor) {
    errors.push(['scheduledFor', 'deve estar no formato YYYY-MM-DDTHH:mm ou YYYY-MM-DDTHH:mm:ss']);
    return null;
  }
  if (scheduledFor.getTime() < context.now.getTime() + SCHEDULING_LEAD_MS) {
    errors.push(['scheduledFor', 'deve ser ao menos 5 minutos no futuro']);
  }
  return scheduledFor;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

function hasCredentials(value: string): boolean {
  const url = new URL(value);
  return url.username !== '' || url.password !== '';
}

/** Normalized, de-duplicated (first kept) contacts; invalid numbers are dropped. */
export function prepareContacts(
  contacts: Array<{ phoneNumber: string; name?: string | null }>,
  defaultCountryCode: number,
): { phones: string[]; names: string[]; invalid: number; duplicates: number } {
  const seen = new Set<string>();
  const phones: string[] = [];
  const names: string[] = [];
  let invalid = 0;
  let duplicates = 0;
  for (const contact of contacts) {
    const phone = normalizePhone(contact.phoneNumber, defaultCountryCode);
    if (!phone) {
      invalid += 1;
    } else if (seen.has(phone)) {
      duplicates += 1;
    } else {
      seen.add(phone);
      phones.push(phone);
      names.push((contact.name ?? '').trim());
    }
  }
  return { phones, names, invalid, duplicates };
}
