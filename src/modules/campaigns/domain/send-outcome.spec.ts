import type { OutgoingMessage } from '../../../common/messaging/outgoing-message';
import {
  blankMessageOutcome,
  blockedNumberOutcome,
  classify,
  GatewayFailure,
  GatewayFailureKind,
  internalOutcome,
  outsideWindowOutcome,
  pacesInstance,
  MAX_SEND_ATTEMPTS,
  requeueOf,
  THROTTLED_RETRY_MS,
  retryDelayMs,
  sendSignalOf,
  SendOutcome,
  unexpectedErrorOutcome,
} from './send-outcome';

const text: OutgoingMessage = { kind: 'text', text: 'Olá' };
const image: OutgoingMessage = {
  kind: 'media',
  mediaType: 'image',
  media: 'https://cdn.example.com/promo.png?token=secret',
};

function failure(kind: GatewayFailureKind, message = 'detalhe do gateway'): GatewayFailure {
  return { kind, message, instanceCondition: kind === 'disconnected' ? 'not_paired' : null };
}

describe('classify', () => {
  it.each<[string, GatewayFailureKind, number, OutgoingMessage, SendOutcome]>([
    [
      'a number not on WhatsApp fails the contact, paced',
      'refused_number',
      1,
      text,
      {
        kind: 'failed',
        reason: 'número não está no WhatsApp',
        paced: true,
        cause: 'refused_number',
      },
    ],
    [
      "the gateway's validation fails the contact with its message",
      'rejected',
      1,
      text,
      {
        kind: 'failed',
        reason: 'recusado pelo gateway: detalhe do gateway',
        paced: true,
        cause: 'rejected',
      },
    ],
    [
      'a refused API key fails the campaign',
      'bad_credentials',
      1,
      text,
      {
        kind: 'campaign_failed',
        reason: 'O gateway recusou a chave de API (credenciais inválidas)',
      },
    ],
    [
      'an unknown instance fails the campaign',
      'unknown_instance',
      1,
      text,
      { kind: 'campaign_failed', reason: 'A instância do gateway não existe' },
    ],
    [
      'a refused gateway address fails the campaign',
      'target_refused',
      1,
      text,
      { kind: 'campaign_failed', reason: 'O endereço do gateway não é permitido' },
    ],
    [
      'a disconnected instance waits, with what the answer proved',
      'disconnected',
      1,
      text,
      {
        kind: 'disconnected',
        reason: 'instância do gateway desconectada',
        condition: 'not_paired',
      },
    ],
    [
      'an answer that proves nothing is uncertain, never resent',
      'uncertain',
      1,
      text,
      { kind: 'uncertain', reason: 'detalhe do gateway', cause: 'gateway' },
    ],
    [
      'unreachable media names the URL without its query',
      'media_unreachable',
      1,
      image,
      {
        kind: 'media_unreachable',
        reason: 'a mídia https://cdn.example.com/promo.png está inacessível para o gateway',
      },
    ],
    [
      'unreachable media of a message without a URL',
      'media_unreachable',
      1,
      text,
      { kind: 'media_unreachable', reason: 'a mídia da mensagem está inacessível para o gateway' },
    ],
    [
      'a transient failure is retried before the last attempt',
      'transient',
      MAX_SEND_ATTEMPTS - 1,
      text,
      { kind: 'retry', reason: 'detalhe do gateway' },
    ],
    [
      'a transient failure on the last attempt fails the contact',
      'transient',
      MAX_SEND_ATTEMPTS,
      text,
      {
        kind: 'failed',
        reason: 'falha temporária do gateway após 3 tentativas',
        paced: true,
        cause: 'retries_exhausted',
      },
    ],
    [
      "Meta's throttling is tried again, whatever the attempts",
      'throttled',
      MAX_SEND_ATTEMPTS,
      text,
      { kind: 'throttled', reason: 'detalhe do gateway' },
    ],
    [
      'a person Meta cannot deliver to fails with its kind, paced',
      'undeliverable',
      1,
      text,
      {
        kind: 'failed',
        reason: 'não entregue pela Meta: detalhe do gateway',
        paced: true,
        cause: 'undeliverable',
      },
    ],
    [
      "Meta's 24-hour refusal fails the contact with its kind",
      'reengagement_required',
      1,
      text,
      {
        kind: 'failed',
        reason: 'fora da janela de 24 h: detalhe do gateway',
        paced: true,
        cause: 'reengagement_required',
      },
    ],
    [
      "a person's marketing limit fails the contact with its kind",
      'marketing_limit',
      1,
      text,
      {
        kind: 'failed',
        reason: 'limite de mensagens de marketing da pessoa: detalhe do gateway',
        paced: true,
        cause: 'marketing_limit',
      },
    ],
    [
      'an account that cannot send holds the campaign with the reason, failing no one',
      'account_blocked',
      1,
      text,
      {
        kind: 'account_blocked',
        reason: 'A conta da API oficial não pode enviar: detalhe do gateway',
      },
    ],
  ])('%s', (_name, kind, attempts, message, expected) => {
    expect(classify(failure(kind), attempts, message)).toEqual(expected);
  });

  it('cuts a long rejection to the 500 characters a reason holds', () => {
    const outcome = classify(failure('rejected', 'x'.repeat(600)), 1, text);
    expect(outcome.reason).toHaveLength(500);
  });
});

describe('outcomes decided before any gateway call', () => {
  it.each<[string, SendOutcome, SendOutcome]>([
    [
      'a number blocked after creation fails unpaced',
      blockedNumberOutcome(),
      {
        kind: 'failed',
        reason: 'número bloqueado depois da criação da campanha',
        paced: false,
        cause: 'blocked',
      },
    ],
    [
      'a blank message fails unpaced',
      blankMessageOutcome(),
      {
        kind: 'failed',
        reason: 'mensagem em branco para este contato (variáveis sem valor)',
        paced: false,
        cause: 'blank_message',
      },
    ],
    [
      'a free-form Cloud API message outside the 24-hour window fails unpaced',
      outsideWindowOutcome(),
      {
        kind: 'failed',
        reason:
          'fora da janela de 24 h: a pessoa não escreveu ao número nas últimas 24 horas (a API oficial só aceita um modelo aprovado)',
        paced: false,
        cause: 'outside_window',
      },
    ],
    [
      'an unexpected throw during the send is uncertain',
      unexpectedErrorOutcome(),
      { kind: 'uncertain', reason: 'erro inesperado durante o envio', cause: 'unexpected_error' },
    ],
    [
      "our own error carries a domain error's message",
      internalOutcome('chave não abre'),
      { kind: 'internal', reason: 'chave não abre' },
    ],
    [
      'our own error without one says the preparation failed',
      internalOutcome(null),
      { kind: 'internal', reason: 'erro interno ao preparar o envio' },
    ],
  ])('%s', (_name, outcome, expected) => {
    expect(outcome).toEqual(expected);
  });
});

describe('retryDelayMs', () => {
  it.each([
    [1, 3_000],
    [2, 10_000],
    [3, 10_000],
  ])('waits after attempt %i: %i ms', (attempts, delay) => {
    expect(retryDelayMs(attempts)).toBe(delay);
  });
});

describe('sendSignalOf', () => {
  it.each<[string, SendOutcome, string | null]>([
    ['a refused number', classify(failure('refused_number'), 1, text), 'refused'],
    ['a rejected message', classify(failure('rejected'), 1, text), 'failed'],
    ['exhausted retries', classify(failure('transient'), 3, text), 'failed'],
    ['a blocked number (no gateway call)', blockedNumberOutcome(), null],
    ['a blank message (no gateway call)', blankMessageOutcome(), null],
  ])('%s', (_name, outcome, signal) => {
    expect(outcome.kind).toBe('failed');
    expect(sendSignalOf(outcome as Parameters<typeof sendSignalOf>[0])).toBe(signal);
  });
});

describe('pacesInstance', () => {
  it.each<[string, SendOutcome, boolean]>([
    ['a delivered message', { kind: 'sent', messageId: 'k', text: 'Olá' }, true],
    ['an unknown outcome', classify(failure('uncertain'), 1, text), true],
    ['a number WhatsApp refused', classify(failure('refused_number'), 1, text), true],
    ['a blocked number (no gateway call)', blockedNumberOutcome(), false],
    ['a blank message (no gateway call)', blankMessageOutcome(), false],
    ['a transient failure to retry', classify(failure('transient'), 1, text), false],
    ['an instance that cannot send', classify(failure('disconnected'), 1, text), false],
    ['our own error', internalOutcome(null), false],
    ["Meta's throttling (the number slows down)", classify(failure('throttled'), 1, text), true],
    ['a person outside the window (no gateway call)', outsideWindowOutcome(), false],
    ['an account that cannot send', classify(failure('account_blocked'), 1, text), false],
  ])('%s: %p', (_name, outcome, paced) => {
    expect(pacesInstance(outcome)).toBe(paced);
  });
});

describe('requeueOf', () => {
  it.each<[string, 'retry' | 'throttled', number, number, ReturnType<typeof requeueOf>]>([
    [
      'a transient failure counts an attempt, back on the retry schedule',
      'retry',
      1,
      5_000,
      {
        retryInMs: 3_000,
        countAttempt: true,
        nextSendInMs: 3_000,
        cause: 'gateway',
        instancePaced: false,
      },
    ],
    [
      "Meta's throttling counts none and waits, the number slowing down",
      'throttled',
      2,
      0,
      {
        retryInMs: THROTTLED_RETRY_MS,
        countAttempt: false,
        nextSendInMs: THROTTLED_RETRY_MS,
        cause: 'gateway',
        instancePaced: true,
      },
    ],
    [
      "Meta's throttling under a longer campaign pause waits the pause",
      'throttled',
      1,
      20_000,
      {
        retryInMs: THROTTLED_RETRY_MS,
        countAttempt: false,
        nextSendInMs: 20_000,
        cause: 'gateway',
        instancePaced: true,
      },
    ],
  ])('%s', (_name, kind, attempts, pauseMs, expected) => {
    expect(requeueOf({ kind }, attempts, pauseMs)).toEqual(expected);
  });
});
