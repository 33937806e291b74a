/** A message a campaign delivered, as the SYSTEM database records it. */
export interface SentContact {
  companyId: number;
  campaignId: number;
  phone: string;
  name: string;
  sentAt: Date;
}
