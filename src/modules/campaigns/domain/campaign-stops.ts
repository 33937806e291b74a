import type { WaitingReason } from './campaign.entity';
import type { InstanceCondition } from './send-outcome';

/** How long a disconnected instance is waited for before the campaign fails. */
export const DISCONNECTED_FAIL_AFTER_MS = 10 * 60 * 1000;
/** How soon a campaign whose instance cannot send looks again. */
export const DISCONNECTED_RECHECK_MS = 5_000;
/** Our own errors (before any gateway call) in a row that pause the campaign for a person. */
export const INTERNAL_ERRORS_BEFORE_PAUSE = 3;
/** How soon a campaign looks again after our own error. */
export const INTERNAL_ERROR_RETRY_MS = 5_000;

export const COMPANY_INACTIVE_REASON = 'a empresa foi desativada';

/** Why a campaign failed after DISCONNECTED_FAIL_AFTER_MS: its instance, never its contacts. */
const DISCONNECTED_FAIL_REASON = {
  disconnected:
    'A instância do gateway ficou desconectada por mais de 10 minutos; os contatos não enviados continuam pendentes',
  notPaired:
    'A instância do gateway ficou mais de 10 minutos sem ser pareada (leia o QR code); os contatos não enviados continuam pendentes',
};

/** What a campaign says it waits for while its instance cannot send. */
export function disconnectionWaitOf(condition: InstanceCondition | null): WaitingReason {
  return condition === 'not_paired' ? 'INSTANCE_NOT_PAIRED' : 'INSTANCE_DISCONNECTED';
}

/**
 * Why the campaign fails, once its instance has not been able to send for
 * DISCONNECTED_FAIL_AFTER_MS (by the database clock); null while it may still come back.
 */
export function disconnectedFailReason(
  disconnectedForMs: number,
  waitingReason: WaitingReason | null,
): string | null {
  if (disconnectedForMs < DISCONNECTED_FAIL_AFTER_MS) {
    return null;
  }
  return waitingReason === 'INSTANCE_NOT_PAIRED'
    ? DISCONNECTED_FAIL_REASON.notPaired
    : DISCONNECTED_FAIL_REASON.disconnected;
}

/**
 * Why the campaign pauses for a person after `streak` of our own errors in a row, the last
 * one `reason`; null below INTERNAL_ERRORS_BEFORE_PAUSE.
 */
export function internalErrorPauseReason(streak: number, reason: string): string | null {
  if (streak < INTERNAL_ERRORS_BEFORE_PAUSE) {
    return null;
  }
  return `envio interrompido por um erro interno repetido: ${reason}`.slice(0, 500);
}
