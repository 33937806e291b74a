export interface ClaimedNotice {
  id: string;
  companyId: number;
  gatewayConfigId: number;
  phoneNumber: string;
  text: string;
  attempts: number;
}

export abstract class NoticesRepository {
  /**
   * Claims due notices and marks them SENDING in one statement. A notice found SENDING after
   * its lease ran out may have gone out: it is failed, never resent.
   */
  abstract claimDue(limit: number): Promise<ClaimedNotice[]>;
  abstract markSent(id: string): Promise<void>;
  abstract markFailed(id: string, error: string): Promise<void>;
  abstract retryLater(id: string, at: Date, error: string): Promise<void>;
  /** Back to the queue until `at`, its instance's next slot: no attempt was made. */
  abstract waitForSlot(id: string, at: Date): Promise<void>;
  abstract msUntilNextDue(): Promise<number | null>;
  /** For the metrics: PENDING notices due now, counted up to `cap` over the due index. */
  abstract countDue(cap: number): Promise<number>;
}
