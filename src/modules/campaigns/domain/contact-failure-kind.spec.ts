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
    ['undeliverable', false, 'Meta cannot deliver to the person: it fails again'],
    ['reengagement_required', true, 'nothing went out; the window is checked again first'],
    ['outside_window', true, 'no call was made; the window is checked again first'],
    ['marketing_limit', true, "nothing went out; Meta's per-person limit lifts with time"],
  ])('%s: retryable %s (%s)', (kind, retryable) => {
    expect(isRetryableFailure(kind)).toBe(retryable);
  });

  it('decides every kind, and hands the SQL only the retryable ones', () => {
    expect(CONTACT_FAILURE_KINDS).toHaveLength(12);
    expect(RETRYABLE_FAILURE_KINDS).toEqual([
      'retries_exhausted',
      'not_delivered',
      'reengagement_required',
      'marketing_limit',
      'outside_window',
    ]);
  });
});
