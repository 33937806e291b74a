import { DomainError } from '../../../common/errors/domain-error';
import type { CampaignStatus } from './campaign-status';

/**
 * The statuses a person may delete a campaign from (docs/API-RULES.md, "Follow-ups and
 * deletion"): never sent (DRAFT) or ended. A campaign that may still send (SCHEDULED, ACTIVE,
 * PAUSED) is cancelled first. Not a move of the transition table: the campaign has no status
 * after it, it is gone.
 */
export const DELETABLE_STATUSES: readonly CampaignStatus[] = [
  'DRAFT',
  'COMPLETED',
  'CANCELLED',
  'FAILED',
];

export function isDeletable(status: CampaignStatus): boolean {
  return DELETABLE_STATUSES.includes(status);
}

/** A campaign that may still send: 409, nothing changed. */
export class CampaignNotDeletableError extends DomainError {
  constructor(status: CampaignStatus) {
    super(
      'CAMPAIGN.DELETE_NOT_ALLOWED',
      'conflict',
      `Não é possível excluir uma campanha com status ${status}; cancele-a antes (só campanhas DRAFT, COMPLETED, CANCELLED ou FAILED podem ser excluídas)`,
    );
  }
}

/**
 * Messages of the campaign are still on their way or being confirmed with the gateway (contacts
 * SENDING or UNCERTAIN, as right after a cancel): their outcome still counts on the number, so
 * the deletion waits for it. 409, nothing changed.
 */
export class CampaignSendsUnsettledError extends DomainError {
  constructor(count: number) {
    super(
      'CAMPAIGN.SENDS_UNSETTLED',
      'conflict',
      `Mensagens desta campanha ainda estão saindo ou sendo confirmadas com o gateway (${count}); tente excluir em alguns minutos`,
    );
  }
}
