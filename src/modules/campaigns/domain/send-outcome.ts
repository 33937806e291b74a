import type { OutgoingMessage } from '../../../common/messaging/outgoing-message';
import type { MessageReason } from '../../../common/metrics/metric-labels';
import type { SendSignal } from './ban-signals';
import type { SendFailureKind } from './contact-failure-kind';
import type { Requeue } from './dispatch-records';
import { fetchedMediaUrlOf } from './gateway-media-rules';

/** Attempts per contact for sends that proved nothing went out (docs/ARCHITECTURE.md). */
export const MAX_SEND_ATTEMPTS = 3;
/** Waits before the 2nd and 3rd attempt: all three fall within 60 seconds. */
export const RETRY_DELAYS_MS = [3_000, 10_000];

/**
 * How long a contact Meta throttled waits before it is tried again, and the campaign before its
 * next message: Meta's pair rate lets a business message the same person about once every 6
 * seconds, and asks to wait before trying again on 130429 and 131056
 * (developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes/).
 */
export const THROTTLED_RETRY_MS = 6_000;

export const OUTSIDE_WINDOW_REASON =
  'fora da janela de 24 h: a pessoa não escreveu ao número nas últimas 24 horas (a API oficial só aceita um modelo aprovado)';
export const BLANK_MESSAGE_REASON = 'mensagem em branco para este contato (variáveis sem valor)';
export const BLOCKED_NUMBER_REASON = 'número bloqueado depois da criação da campanha';
export const UNEXPECTED_ERROR_REASON = 'erro inesperado durante o envio';
export const PREPARATION_ERROR_REASON = 'erro interno ao preparar o envio';

/** Why a disconnected instance cannot send, when the answer proves it (`InstanceCondition`). */
export type InstanceCondition = 'not_paired' | 'no_socket' | 'closed';

/** What a failed gateway call says beyond its kind. */
interface FailureDetail {
  message: string;
  instanceCondition: InstanceCondition | null;
}

/** A failed gateway call, as classify reads it (a `GatewayError` is one). */
export interface GatewayFailure extends FailureDetail {
  kind: GatewayFailureKind;
}

/** A message the gateway took: its key (for receipts) and the text the contact got. */
export interface DeliveredOutcome {
  kind: 'sent';
  messageId: string | null;
  text: string | null;
}

/**
 * Not to be sent; `paced`: a gateway call was made, so the campaign's pause applies.
 * `cause`: the reason's class, as the metrics count it and the contact records it.
 */
export interface FailedOutcome {
  kind: 'failed';
  reason: string;
  paced: boolean;
  cause: SendFailureKind;
}

/** The message may have gone out: reconciled with the gateway's store, never sent again. */
export interface UncertainOutcome {
  kind: 'uncertain';
  reason: string;
  cause: MessageReason;
}

/** What one send came to (docs/ARCHITECTURE.md, "Gateway outcomes"). */
export type SendOutcome =
  | DeliveredOutcome
  | FailedOutcome
  | { kind: 'retry'; reason: string }
  /** Meta's rate for the number or the pair: not sent, tried again without counting an attempt. */
  | { kind: 'throttled'; reason: string }
  | UncertainOutcome
  /** `condition`: what the answer proved about the instance (null: only that it cannot send). */
  | { kind: 'disconnected'; reason: string; condition: InstanceCondition | null }
  /** The gateway cannot fetch the media: every contact would fail alike, so the campaign pauses. */
  | { kind: 'media_unreachable'; reason: string }
  /** The Cloud API account cannot send until someone acts: the campaign pauses with the reason. */
  | { kind: 'account_blocked'; reason: string }
  /** Our own error before any gateway call: the contact goes back, never FAILED. */
  | { kind: 'internal'; reason: string }
  | { kind: 'campaign_failed'; reason: string };

export type UnsentOutcome = Exclude<SendOutcome, DeliveredOutcome>;

/** What the gateway's failure proves for this contact, on its `attempts`-th attempt. */
type Classifier = (
  failure: FailureDetail,
  attempts: number,
  message: OutgoingMessage,
) => UnsentOutcome;

/**
 * What the engine does about each kind of gateway failure, by what it proves (the gateway
 * module's `GatewayErrorKind`, messaging-gateway.ts). The dispatcher passes a `GatewayError`,
 * so a kind added there does not compile until it has its line here.
 */
const OUTCOME_OF = {
  refused_number: () => failedAfterCall('número não está no WhatsApp', 'refused_number'),
  rejected: (failure) =>
    failedAfterCall(`recusado pelo gateway: ${failure.message}`.slice(0, 500), 'rejected'),
  bad_credentials: () => campaignFailed('O gateway recusou a chave de API (credenciais inválidas)'),
  unknown_instance: () => campaignFailed('A instância do gateway não existe'),
  target_refused: () => campaignFailed('O endereço do gateway não é permitido'),
  disconnected: (failure) => ({
    kind: 'disconnected',
    reason: 'instância do gateway desconectada',
    condition: failure.instanceCondition,
  }),
  uncertain: (failure) => ({ kind: 'uncertain', reason: failure.message, cause: 'gateway' }),
  media_unreachable: (_failure, _attempts, message) => ({
    kind: 'media_unreachable',
    reason: mediaUnreachableReason(message),
  }),
  // Meta's answers (Cloud API, docs/SENDING.md "Meta's outcomes"): each proves nothing went out.
  throttled: (failure) => ({ kind: 'throttled', reason: failure.message }),
  undeliverable: (failure) =>
    failedAfterCall(`não entregue pela Meta: ${failure.message}`.slice(0, 500), 'undeliverable'),
  reengagement_required: (failure) =>
    failedAfterCall(
      `fora da janela de 24 h: ${failure.message}`.slice(0, 500),
      'reengagement_required',
    ),
  marketing_limit: (failure) =>
    failedAfterCall(
      `limite de mensagens de marketing da pessoa: ${failure.message}`.slice(0, 500),
      'marketing_limit',
    ),
  account_blocked: (failure) => ({
    kind: 'account_blocked',
    reason: `A conta da API oficial não pode enviar: ${failure.message}`.slice(0, 500),
  }),
  transient: (failure, attempts) => retryOrExhausted(failure, attempts),
} satisfies Record<string, Classifier>;

/** Another attempt while the budget lasts: the failure proved nothing went out. */
function retryOrExhausted(failure: FailureDetail, attempts: number): UnsentOutcome {
  return attempts >= MAX_SEND_ATTEMPTS
    ? failedAfterCall(
        `falha temporária do gateway após ${MAX_SEND_ATTEMPTS} tentativas`,
        'retries_exhausted',
      )
    : { kind: 'retry', reason: failure.message };
}

/** The kinds of gateway failure the engine knows what to do about. */
export type GatewayFailureKind = keyof typeof OUTCOME_OF;

/** What a gateway failure of the contact's `attempts`-th attempt at `message` proves. */
export function classify(
  failure: GatewayFailure,
  attempts: number,
  message: OutgoingMessage,
): UnsentOutcome {
  return OUTCOME_OF[failure.kind](failure, attempts, message);
}

/** The number was blocked after the campaign was created: no gateway call is made. */
export function blockedNumberOutcome(): FailedOutcome {
  return { kind: 'failed', reason: BLOCKED_NUMBER_REASON, paced: false, cause: 'blocked' };
}

/**
 * A free-form message on the Cloud API to a person who has not written in 24 hours: Meta would
 * refuse it (131047), so no gateway call is made.
 */
export function outsideWindowOutcome(): FailedOutcome {
  return { kind: 'failed', reason: OUTSIDE_WINDOW_REASON, paced: false, cause: 'outside_window' };
}

/** The template rendered blank for this contact: no gateway call is made. */
export function blankMessageOutcome(): FailedOutcome {
  return { kind: 'failed', reason: BLANK_MESSAGE_REASON, paced: false, cause: 'blank_message' };
}

/** Something other than a gateway error was thrown after the request may have left. */
export function unexpectedErrorOutcome(): UnsentOutcome {
  return { kind: 'uncertain', reason: UNEXPECTED_ERROR_REASON, cause: 'unexpected_error' };
}

/** Our own error before the gateway call: a domain error's message, else a generic one. */
export function internalOutcome(domainMessage: string | null): UnsentOutcome {
  return { kind: 'internal', reason: domainMessage ?? PREPARATION_ERROR_REASON };
}

/**
 * Whether the instance waits its pause after this outcome: a message went out or may have, a
 * gateway call reached WhatsApp's side of things and was refused there, or Meta asked the
 * number to slow down.
 */
export function pacesInstance(outcome: SendOutcome): boolean {
  return (
    outcome.kind === 'sent' ||
    outcome.kind === 'uncertain' ||
    outcome.kind === 'throttled' ||
    (outcome.kind === 'failed' && outcome.paced)
  );
}

/**
 * How a contact that was not sent goes back: a transient failure counts an attempt and comes
 * back on the retry schedule (the campaign's pause does not apply: nothing went out); Meta's
 * throttling counts none, and both the contact and the campaign wait THROTTLED_RETRY_MS at
 * least (the campaign's pause, if longer), which slows the number down.
 */
export function requeueOf(
  outcome: { kind: 'retry' | 'throttled' },
  attempts: number,
  pauseMs: number,
): Requeue & { instancePaced: boolean } {
  if (outcome.kind === 'throttled') {
    const wait = Math.max(THROTTLED_RETRY_MS, pauseMs);
    return {
      retryInMs: THROTTLED_RETRY_MS,
      countAttempt: false,
      nextSendInMs: wait,
      cause: 'gateway',
      instancePaced: true,
    };
  }
  const delay = retryDelayMs(attempts);
  return {
    retryInMs: delay,
    countAttempt: true,
    nextSendInMs: Math.min(delay, pauseMs),
    cause: 'gateway',
    instancePaced: false,
  };
}

/** The wait before the contact's next attempt, after its `attempts`-th failed transiently. */
export function retryDelayMs(attempts: number): number {
  return RETRY_DELAYS_MS[Math.min(Math.max(attempts, 1) - 1, RETRY_DELAYS_MS.length - 1)];
}

/** What a failed send says about the number (a send made through the gateway says something). */
export function sendSignalOf(outcome: FailedOutcome): SendSignal {
  if (!outcome.paced) {
    return null;
  }
  return outcome.cause === 'refused_number' ? 'refused' : 'failed';
}

/**
 * Names the URL the gateway could not fetch (without its query); not why, which would tell a
 * tenant what the gateway's network refuses or cannot resolve.
 */
export function mediaUnreachableReason(message: OutgoingMessage): string {
  const url = fetchedMediaUrlOf(message);
  const subject = url ? `a mídia ${url}` : 'a mídia da mensagem';
  return `${subject} está inacessível para o gateway`.slice(0, 500);
}

function failedAfterCall(reason: string, cause: SendFailureKind): FailedOutcome {
  return { kind: 'failed', reason, paced: true, cause };
}

function campaignFailed(reason: string): UnsentOutcome {
  return { kind: 'campaign_failed', reason };
}
