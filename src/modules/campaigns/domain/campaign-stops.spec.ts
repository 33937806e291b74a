import type { WaitingReason } from './campaign.entity';
import {
  DISCONNECTED_FAIL_AFTER_MS,
  disconnectedFailReason,
  disconnectionWaitOf,
  INTERNAL_ERRORS_BEFORE_PAUSE,
  internalErrorPauseReason,
} from './campaign-stops';
import type { InstanceCondition } from './send-outcome';

describe('disconnectionWaitOf', () => {
  it.each<[InstanceCondition | null, WaitingReason]>([
    ['not_paired', 'INSTANCE_NOT_PAIRED'],
    ['no_socket', 'INSTANCE_DISCONNECTED'],
    ['closed', 'INSTANCE_DISCONNECTED'],
    [null, 'INSTANCE_DISCONNECTED'],
  ])('%s: waits with %s', (condition, waitingReason) => {
    expect(disconnectionWaitOf(condition)).toBe(waitingReason);
  });
});

describe('disconnectedFailReason', () => {
  it.each<[string, number, WaitingReason | null, RegExp | null]>([
    [
      'a minute short of the limit',
      DISCONNECTED_FAIL_AFTER_MS - 60_000,
      'INSTANCE_DISCONNECTED',
      null,
    ],
    [
      'at the limit',
      DISCONNECTED_FAIL_AFTER_MS,
      'INSTANCE_DISCONNECTED',
      /desconectada por mais de 10 minutos/,
    ],
    [
      'never paired at the limit',
      DISCONNECTED_FAIL_AFTER_MS,
      'INSTANCE_NOT_PAIRED',
      /sem ser pareada/,
    ],
    [
      'no known wait at the limit',
      DISCONNECTED_FAIL_AFTER_MS,
      null,
      /desconectada por mais de 10 minutos/,
    ],
  ])('%s', (_name, forMs, waitingReason, expected) => {
    const reason = disconnectedFailReason(forMs, waitingReason);
    if (expected === null) {
      expect(reason).toBeNull();
    } else {
      expect(reason).toMatch(expected);
      expect(reason).toMatch(/os contatos não enviados continuam pendentes$/);
    }
  });
});

describe('internalErrorPauseReason', () => {
  it('keeps sending below the streak, pauses at it, naming the last error', () => {
    expect(internalErrorPauseReason(INTERNAL_ERRORS_BEFORE_PAUSE - 1, 'pool')).toBeNull();
    expect(internalErrorPauseReason(INTERNAL_ERRORS_BEFORE_PAUSE, 'pool')).toBe(
      'envio interrompido por um erro interno repetido: pool',
    );
  });

  it('cuts the reason to the 500 characters a pause reason holds', () => {
    expect(internalErrorPauseReason(5, 'x'.repeat(600))).toHaveLength(500);
  });
});
