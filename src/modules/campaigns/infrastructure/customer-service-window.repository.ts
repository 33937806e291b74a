import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '../../../database/query-rows';

/** How long after a person's last message a business may send them anything but a template. */
export const CUSTOMER_SERVICE_WINDOW_HOURS = 24;

/**
 * The WhatsApp Cloud API's customer-service window: a business may send a free-form message
 * only within 24 hours of the person's last message to the number; outside it, only an
 * approved template (developers.facebook.com/documentation/business-messaging/whatsapp/messages/
 * send-messages, "Customer service windows"). The person's last message is the inbound record
 * of contact_conversations, keyed like the reach-out rules (phone_match_key).
 */
@Injectable()
export class CustomerServiceWindowRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Whether the person at `phone` wrote to the number `gatewayConfigId` in the last 24 hours. */
  async isOpen(gatewayConfigId: number, phone: string): Promise<boolean> {
    const rows = await queryRows<{ open: boolean }>(
      this.dataSource,
      `SELECT EXISTS (
         SELECT 1 FROM contact_conversations
          WHERE gateway_config_id = $1 AND phone_key = phone_match_key($2)
            AND last_inbound_at > now() - make_interval(hours => $3)) AS open`,
      [gatewayConfigId, phone, CUSTOMER_SERVICE_WINDOW_HOURS],
    );
    return rows[0]?.open ?? false;
  }
}
