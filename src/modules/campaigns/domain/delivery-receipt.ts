/** One receipt: the gateway's message key id, how far the message got, and when. */
export interface Receipt {
  companyId: number;
  keyId: string;
  /** 0 error, 2 server ack, 3 delivered, 4 read, 5 played (see receiptRank). */
  rank: number;
  at: Date;
}
