import { TransitionTable } from '../../../common/state/transition-table';

export const NOTICE_STATUSES = ['PENDING', 'SENDING', 'SENT', 'FAILED'] as const;
export type NoticeStatus = (typeof NOTICE_STATUSES)[number];

/** A notice is born PENDING, in the transaction of the state change it tells about. */
export const NOTICE_QUEUED: NoticeStatus = 'PENDING';

export type NoticeAction =
  /** The worker takes it; SENDING is committed before the gateway is called. */
  | 'take'
  /** The gateway accepted it. */
  | 'deliver'
  /** Refused for good, or found SENDING past its lease: it may have gone out, so never resent. */
  | 'fail'
  /** The attempt proved nothing went out: try again later. */
  | 'retry';

/** The life of a notice: like a campaign contact's, at most once. */
export const NOTICE_LIFECYCLE = new TransitionTable<NoticeStatus, NoticeAction>('NOTICE', {
  take: { PENDING: 'SENDING' },
  deliver: { SENDING: 'SENT' },
  fail: { SENDING: 'FAILED' },
  retry: { SENDING: 'PENDING' },
});
