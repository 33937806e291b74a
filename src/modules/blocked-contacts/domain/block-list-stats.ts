export interface BlockListStats {
  /** Actively blocked numbers. */
  totalBlocked: number;
  /** The latest block or unblock; null when the company never blocked a number. */
  lastChangedAt: Date | null;
}
