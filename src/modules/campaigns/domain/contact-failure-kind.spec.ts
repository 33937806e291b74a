import {
  CONTACT_FAILURE_KINDS,
  ContactFailureKind,
  isRetryableFailure,
  RETRYABLE_FAILURE_KINDS,
} from './contact-failure-kind';

describe('which failed contacts a retry sends again', () => {
  it.each<[ContactFailureKind, boolean, string]>([
    ['retries_exhausted', true, 'every attempt proved nothing went out'],
    ['refused_number', false, 'WhatsApp refuses the number again'],
    ['rejected', false, 'the gateway refuses the same payload again'],
    ['blocked', false, 'the company asked not to message the number'],
    ['blank_message', false, 'the message renders blank again'],
    ['not_delivered', true, 'WhatsApp said the message never arrived'],
    ['unknown_outcome', false, 'the message may have gone out'],
    ['unrecorded', false, 'an old reason text cannot prove nothing went out'],
  ])('%s: retryable %s (%s)', (kind, retryable) => {
    expect(isRetryableFailure(kind)).toBe(retryable);
  });

  it('decides every kind, and hands the SQL only the retryable ones', () => {
    expect(CONTACT_FAILURE_KINDS).toHaveLength(8);
    expect(RETRYABLE_FAILURE_KINDS).toEqual(['retries_exhausted', 'not_delivered']);
  });
});
