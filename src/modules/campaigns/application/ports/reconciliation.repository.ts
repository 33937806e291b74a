/** A contact whose send outcome is unknown, due for a look into the gateway's store. */
export interface UncertainContact {
  id: string;
  campaignId: number;
  companyId: number;
  gatewayConfigId: number;
  phoneNumber: string;
  sendingStartedAt: Date;
  /** Looks already taken (0 at the first). */
  attempts: number;
  /** The database clock now: the end of the window searched. */
  now: Date;
}

/**
 * The SQL of reconciliation: UNCERTAIN contacts are claimed with SKIP LOCKED, their
 * `reconcile_at` pushed forward as a lease, and resolved with the same guarded transitions and
 * in-statement counters as the engine's other outcomes.
 */
export abstract class ReconciliationRepository {
  abstract claimDue(limit: number): Promise<UncertainContact[]>;
  /** Of these gateway message ids, the ones already recorded for some other contact. */
  abstract recordedMessageIds(ids: string[]): Promise<Set<string>>;
  /**
   * Found in the gateway's store: SENT with its key id, counted, the campaign woken. False
   * when the contact was no longer UNCERTAIN (nothing moved).
   */
  abstract resolveAsSent(
    contact: UncertainContact,
    messageId: string,
    sentAt: Date,
  ): Promise<boolean>;
  /** Not found yet: look again `delayMs` after the send began. */
  abstract lookAgain(contact: UncertainContact, delayMs: number): Promise<void>;
  /** Never found: FAILED with an unknown outcome, counted apart, never sent again. False: nothing moved. */
  abstract writeOff(contact: UncertainContact, reason: string): Promise<boolean>;
  abstract msUntilNextDue(): Promise<number | null>;
}
