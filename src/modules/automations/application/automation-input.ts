import { normalizePhone } from '../../../common/phone/phone-number';
import { detectMediaType, isDataUri } from '../../campaigns/domain/media-kind';
import { templateFieldProblems } from '../../campaigns/domain/message-variants';
import type { AutomationSettings } from '../domain/automation.entity';
import { scheduleProblems } from '../domain/automation-schedule';
import { AutomationFilter, AutomationMessage, TODAY } from '../domain/automation-rules';
import type { FilterableColumn } from './ports/automation-databases.port';

export type FieldErrors = Array<[field: string, message: string]>;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const OPERATORS_WITHOUT_VALUE = new Set(['isEmpty', 'isNotEmpty']);

/**
 * The rules of docs/API-RULES.md §5 that span fields, checked against the database's columns.
 * `textsChanged`: the message texts are new (a creation, or an update that sends
 * messageConfig) and must follow the variants rules of §4; texts stored before those rules
 * are left alone, so an update of another field never fails on them.
 */
export function automationProblems(
  settings: AutomationSettings,
  columns: FilterableColumn[],
  textsChanged = true,
): FieldErrors {
  const errors: FieldErrors = [...scheduleProblems(settings.scheduleType, settings.schedule)];
  if (settings.intervalMinSeconds > settings.intervalMaxSeconds) {
    errors.push(['intervalMinSeconds', 'não pode ser maior que intervalMaxSeconds']);
  }
  if (settings.dedupStrategy === 'COOLDOWN_DAYS' && !settings.dedupCooldownDays) {
    errors.push(['dedupCooldownDays', 'é obrigatório com dedupStrategy COOLDOWN_DAYS']);
  }
  settings.filters.forEach((filter, index) =>
    errors.push(...filterProblems(filter, index, columns)),
  );
  errors.push(...messageProblems(settings.messageConfig));
  if (textsChanged) {
    errors.push(...templateFieldProblems(settings.messageConfig, 'messageConfig.'));
  }
  return errors;
}

function filterProblems(
  filter: AutomationFilter,
  index: number,
  columns: FilterableColumn[],
): FieldErrors {
  const field = `filters[${index}]`;
  const column = columns.find((c) => c.columnName === filter.filterId);
  if (!column) {
    return [[`${field}.filterId`, `coluna inexistente na base: ${filter.filterId.slice(0, 60)}`]];
  }
  const problems: FieldErrors = [];
  const needsValue = !OPERATORS_WITHOUT_VALUE.has(filter.operator);
  if (needsValue && !filter.value.trim()) {
    problems.push([`${field}.value`, 'é obrigatório para este operador']);
  }
  const isDate = column.dataType === 'DATE';
  // Text columns of pushed imports often hold dates: they may be compared as dates too.
  const mayHoldDates = isDate || column.dataType === 'TEXT';
  if (filter.ignoreYear && !mayHoldDates) {
    problems.push([`${field}.ignoreYear`, 'só se aplica a colunas de data ou texto']);
  }
  if (filter.value === TODAY && !mayHoldDates) {
    problems.push([`${field}.value`, 'TODAY só se aplica a colunas de data ou texto']);
  }
  if (
    isDate &&
    needsValue &&
    filter.value !== TODAY &&
    ['equals', 'notEquals', 'before', 'after'].includes(filter.operator)
  ) {
    if (!ISO_DATE.test(filter.value)) {
      problems.push([`${field}.value`, 'deve ser TODAY ou uma data AAAA-MM-DD']);
    }
  }
  if (
    column.dataType === 'NUMBER' &&
    ['before', 'after'].includes(filter.operator) &&
    Number.isNaN(Number(filter.value))
  ) {
    problems.push([`${field}.value`, 'deve ser um número']);
  }
  return problems;
}

function messageProblems(message: AutomationMessage): FieldErrors {
  if (message.template) {
    // The approved template is the whole message (CampaignTemplateCheck checks it on the account).
    return message.type !== 'TEXT' || message.message?.trim()
      ? [
          [
            'messageConfig.template',
            'vai com type TEXT e sem message (o modelo aprovado é a mensagem)',
          ],
        ]
      : [];
  }
  switch (message.type) {
    case 'TEXT':
      return message.message?.trim() ? [] : [['messageConfig.message', 'é obrigatória para TEXT']];
    case 'POLL':
      if (!message.pollData) {
        return [['messageConfig.pollData', 'é obrigatório para POLL']];
      }
      return message.pollData.selectableCount > message.pollData.options.length
        ? [['messageConfig.pollData.selectableCount', 'não pode ser maior que o número de opções']]
        : [];
    case 'MEDIA':
    case 'AUDIO':
      return mediaProblems(message);
  }
}

function mediaProblems(message: AutomationMessage): FieldErrors {
  const url = message.mediaUrl;
  if (!url) {
    return [['messageConfig.mediaUrl', `é obrigatória para ${message.type}`]];
  }
  if (!isDataUri(url) && !/^https?:\/\/\S+$/i.test(url)) {
    return [['messageConfig.mediaUrl', 'deve ser uma URL http(s) ou um data URI base64']];
  }
  if (message.type === 'MEDIA') {
    const kind = message.mediaType ?? detectMediaType(url, message.fileName);
    if (!kind || kind === 'audio') {
      return [
        ['messageConfig.mediaType', 'informe image, video ou document (áudio usa o tipo AUDIO)'],
      ];
    }
  }
  return [];
}

export function normalizeNotificationPhone(
  phone: string | null | undefined,
  defaultCountryCode: number,
): { phone: string | null; error?: [string, string] } {
  if (phone === undefined || phone === null || phone.trim() === '') {
    return { phone: null };
  }
  const normalized = normalizePhone(phone, defaultCountryCode);
  return normalized
    ? { phone: normalized }
    : { phone: null, error: ['notificationPhone', 'número de telefone inválido'] };
}
