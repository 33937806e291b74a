import { DomainError, InvalidInputError } from '../../../common/errors/domain-error';
import type { CampaignAction, CampaignStatus } from './campaign-status';

const ACTION_WORDS: Record<CampaignAction, string> = {
  start: 'iniciar',
  pause: 'pausar',
  resume: 'retomar',
  cancel: 'cancelar',
  complete: 'concluir',
  fail: 'marcar como falha',
  retry: 'reenviar as falhas de',
  edit: 'editar',
  launch: 'lançar',
  schedule: 'agendar',
};

const HINTS: Partial<Record<`${CampaignAction}:${CampaignStatus}`, string>> = {
  'pause:SCHEDULED': '; para impedir o envio, cancele a campanha',
  'retry:DRAFT': '; ela ainda não foi enviada',
  'retry:SCHEDULED': '; ela ainda não foi enviada',
  'retry:ACTIVE': '; ela ainda está enviando',
  'retry:PAUSED': '; para continuar o envio, retome a campanha',
  'retry:CANCELLED': '; uma campanha cancelada não volta a enviar',
  'edit:ACTIVE': '; ela já começou a enviar: só rascunhos e campanhas agendadas são editados',
  'edit:PAUSED': '; ela já começou a enviar: só rascunhos e campanhas agendadas são editados',
  'launch:SCHEDULED': '; ela já foi lançada e sai na hora agendada',
  'launch:ACTIVE': '; ela já foi lançada',
};

/**
 * An edit or a launch the campaign's status refuses: a conflict (409) that changes nothing, as
 * a retry's (docs/API-RULES.md, "Drafts: edit and launch").
 */
export class CampaignDraftMoveNotAllowedError extends DomainError {
  constructor(from: CampaignStatus, action: 'edit' | 'launch') {
    super(
      action === 'edit' ? 'CAMPAIGN.EDIT_NOT_ALLOWED' : 'CAMPAIGN.LAUNCH_NOT_ALLOWED',
      'conflict',
      refusedMoveMessage(from, action),
    );
  }
}

function refusedMoveMessage(from: CampaignStatus, action: CampaignAction): string {
  return `Não é possível ${ACTION_WORDS[action]} uma campanha com status ${from}${HINTS[`${action}:${from}`] ?? ''}`;
}

export class CampaignTransitionNotAllowedError extends DomainError {
  constructor(from: CampaignStatus, action: CampaignAction) {
    super('CAMPAIGN.TRANSITION_NOT_ALLOWED', 'invalid', refusedMoveMessage(from, action));
  }
}

/**
 * A retry the campaign's state refuses. A conflict (409), unlike the older moves' 400: the
 * request is well formed and may succeed later, once the campaign ends (docs/API-RULES.md §4).
 */
export class CampaignRetryNotAllowedError extends DomainError {
  constructor(from: CampaignStatus) {
    super('CAMPAIGN.RETRY_NOT_ALLOWED', 'conflict', refusedMoveMessage(from, 'retry'));
  }
}

export class CampaignRetryWindowPassedError extends DomainError {
  constructor(days: number) {
    super(
      'CAMPAIGN.RETRY_WINDOW_PASSED',
      'conflict',
      `Só é possível reenviar as falhas até ${days} dias depois do fim da campanha; esta terminou há mais tempo`,
    );
  }
}

export class CampaignNothingToRetryError extends DomainError {
  constructor() {
    super(
      'CAMPAIGN.NOTHING_TO_RETRY',
      'conflict',
      'Nenhum contato desta campanha pode ser reenviado: só falhas temporárias do gateway voltam a ser enviadas, uma vez por contato (número fora do WhatsApp, recusa do gateway, número bloqueado, mensagem em branco e resultado desconhecido nunca)',
    );
  }
}

/** The campaign's gateway configuration was deleted after it ended: it has nothing to send through. */
export class CampaignGatewayConfigRemovedError extends DomainError {
  constructor() {
    super(
      'CAMPAIGN.GATEWAY_CONFIG_REMOVED',
      'conflict',
      'A configuração do gateway desta campanha foi removida; não é possível reenviar',
    );
  }
}

export class NoValidContactsError extends InvalidInputError {
  constructor(reason = 'Nenhum contato válido: informe ao menos um número de telefone válido') {
    super('CAMPAIGN.NO_VALID_CONTACTS', reason);
  }
}

export class GatewayCheckFailedError extends InvalidInputError {
  constructor(message: string) {
    super('CAMPAIGN.GATEWAY_CHECK_FAILED', message);
  }
}

/**
 * The campaign changed between the checks of an edit or a launch and its write (another edit,
 * its scheduled start): what was checked is no longer what would be written (409, nothing
 * changed; the request may simply be sent again).
 */
export class CampaignChangedMeanwhileError extends DomainError {
  constructor() {
    super(
      'CAMPAIGN.CHANGED_MEANWHILE',
      'conflict',
      'A campanha mudou enquanto o pedido era verificado; envie-o de novo',
    );
  }
}
