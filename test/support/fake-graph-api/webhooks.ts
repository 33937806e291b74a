import { createHmac, randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import type request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { SecretBox } from '../../../src/common/crypto/secret-box';
import type { Pool } from 'pg';
import { waitForCampaign } from '../campaigns';
import { db } from '../db';
import type { FakeEvolutionApi } from '../fake-evolution-api';
import { startCampaign, trackedConfig } from '../gateway-events';
import type { TestCompany } from '../test-app';

/**
 * Meta's webhooks as the Cloud API sends them (developers.facebook.com/documentation/
 * business-messaging/whatsapp/webhooks/reference: messages, messages/status,
 * message_template_status_update, phone_number_quality_update), and a sender that signs them
 * with an app secret (X-Hub-Signature-256) and posts them to the service's events route.
 */

export const WEBHOOK_SIGNATURE_HEADER = 'X-Hub-Signature-256';

/** A Cloud API configuration as the tests know it: its numbers and secrets in the clear. */
export interface CloudNumber {
  id: number;
  companyId: number;
  phoneNumberId: string;
  businessAccountId: string;
  displayPhoneNumber: string;
  appSecret: string;
  verifyToken: string;
}

/** Unix seconds, as Meta writes them (a string in statuses and messages). */
export function unixSeconds(at: Date = new Date()): string {
  return String(Math.floor(at.getTime() / 1000));
}

/**
 * Makes an existing configuration a Cloud API one by SQL (its campaigns and contacts stay),
 * its app secret sealed with the app's own SecretBox as the contract says.
 */
export async function makeCloudNumber(
  app: INestApplication,
  config: { id: number; companyId: number },
  options: {
    phoneNumberId?: string;
    businessAccountId?: string;
    displayPhoneNumber?: string;
    /** The app's database when it is not the shared test database. */
    pool?: Pool;
  } = {},
): Promise<CloudNumber> {
  const suffix = String(config.id).padStart(6, '0');
  const cloud: CloudNumber = {
    id: config.id,
    companyId: config.companyId,
    phoneNumberId: options.phoneNumberId ?? `10654${suffix}`,
    businessAccountId: options.businessAccountId ?? `10229${suffix}`,
    displayPhoneNumber:
      options.displayPhoneNumber ?? `+55 11 9${suffix.slice(-4)}-${suffix.slice(0, 4)}`,
    appSecret: randomBytes(16).toString('hex'),
    verifyToken: randomBytes(16).toString('hex'),
  };
  const sealed = app
    .get(SecretBox)
    .encrypt(cloud.appSecret, `gateway-config-app-secret:${config.companyId}`);
  await (options.pool ?? db()).query(
    `UPDATE gateway_configs SET provider = 'CLOUD_API', instance = $2, business_account_id = $3,
            api_version = 'v23.0', app_secret_encrypted = $4, webhook_verify_token = $5,
            display_phone_number = $6, quality_rating = 'GREEN', messaging_limit_tier = 'TIER_1K',
            number_checked_at = now() - interval '1 hour'
      WHERE id = $1 AND company_id = $7`,
    [
      config.id,
      cloud.phoneNumberId,
      cloud.businessAccountId,
      sealed,
      cloud.verifyToken,
      cloud.displayPhoneNumber,
      config.companyId,
    ],
  );
  return cloud;
}

export interface StatusFields {
  wamid: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  recipientId?: string;
  at?: Date;
  callbackData?: string;
  error?: { code: number; title: string; message?: string };
  /** `type`: regular (charged, the default), free_customer_service or free_entry_point. */
  pricing?: { billable: boolean; category: string; type?: string };
}

/** One `statuses[]` item (messages/status reference). */
export function status(fields: StatusFields): Record<string, unknown> {
  return {
    id: fields.wamid,
    status: fields.status,
    timestamp: unixSeconds(fields.at),
    recipient_id: fields.recipientId ?? '5511987001001',
    ...(fields.callbackData === undefined ? {} : { biz_opaque_callback_data: fields.callbackData }),
    ...(fields.pricing === undefined
      ? {}
      : {
          pricing: {
            billable: fields.pricing.billable,
            pricing_model: 'PMP',
            type: fields.pricing.type ?? 'regular',
            category: fields.pricing.category,
          },
        }),
    ...(fields.error === undefined
      ? {}
      : {
          errors: [
            {
              code: fields.error.code,
              title: fields.error.title,
              message: fields.error.message ?? fields.error.title,
              error_data: { details: fields.error.message ?? fields.error.title },
              href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/',
            },
          ],
        }),
  };
}

/** A person's text message (`messages[]`, type text). */
export function inboundText(from: string, body: string, at?: Date): Record<string, unknown> {
  return {
    from,
    id: `wamid.IN${randomBytes(12).toString('hex')}`,
    timestamp: unixSeconds(at),
    type: 'text',
    text: { body },
  };
}

/** A `messages` change of the number: statuses and/or people's messages. */
export function messagesChange(
  number: Pick<CloudNumber, 'phoneNumberId' | 'displayPhoneNumber'>,
  items: { statuses?: Array<Record<string, unknown>>; messages?: Array<Record<string, unknown>> },
): Record<string, unknown> {
  return {
    field: 'messages',
    value: {
      messaging_product: 'whatsapp',
      metadata: {
        display_phone_number: number.displayPhoneNumber.replace(/\D/g, ''),
        phone_number_id: number.phoneNumberId,
      },
      ...(items.messages
        ? {
            contacts: items.messages.map((m) => ({ profile: { name: 'Cliente' }, wa_id: m.from })),
            messages: items.messages,
          }
        : {}),
      ...(items.statuses ? { statuses: items.statuses } : {}),
    },
  };
}

/** A message_template_status_update change. */
export function templateStatusChange(
  template: { name: string; language: string },
  event: string,
  reason = 'NONE',
): Record<string, unknown> {
  return {
    field: 'message_template_status_update',
    value: {
      event,
      message_template_id: 1234567890123456,
      message_template_name: template.name,
      message_template_language: template.language,
      reason,
      message_template_category: 'MARKETING',
    },
  };
}

/** A phone_number_quality_update change (FLAGGED: the quality dropped to RED). */
export function qualityChange(
  number: Pick<CloudNumber, 'displayPhoneNumber'>,
  event: string,
  currentLimit = 'TIER_1K',
): Record<string, unknown> {
  return {
    field: 'phone_number_quality_update',
    value: {
      display_phone_number: number.displayPhoneNumber.replace(/\D/g, ''),
      event,
      current_limit: currentLimit,
      max_daily_conversations_per_business: currentLimit.replace('TIER_', ''),
    },
  };
}

/** The whole notification: one entry of the business account with these changes. */
export function webhookBody(
  businessAccountId: string,
  changes: Array<Record<string, unknown>>,
  at: Date = new Date(),
): Record<string, unknown> {
  return {
    object: 'whatsapp_business_account',
    entry: [{ id: businessAccountId, time: Math.floor(at.getTime() / 1000), changes }],
  };
}

export function signatureOf(raw: string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
}

/**
 * Posts the body to the configuration's events route as Meta does: JSON, signed with the app
 * secret, or with `signature` as given (null: none).
 */
export function sendWebhook(
  http: TestAgent,
  configId: number,
  body: unknown,
  appSecret: string,
  signature?: string | null,
): request.Test {
  const raw = JSON.stringify(body);
  const request = http
    .post(`/api/gateway-events/${configId}`)
    .set('Content-Type', 'application/json')
    .set('User-Agent', 'facebookexternalua');
  const header = signature === undefined ? signatureOf(raw, appSecret) : signature;
  return (header === null ? request : request.set(WEBHOOK_SIGNATURE_HEADER, header)).send(raw);
}

/** Meta's verification request (GET with hub.mode, hub.verify_token, hub.challenge). */
export function verificationRequest(
  http: TestAgent,
  configId: number,
  query: Record<string, string>,
): request.Test {
  return http.get(`/api/gateway-events/${configId}`).query(query);
}

/**
 * A campaign to `contacts` completed through the fake Evolution API, its configuration then
 * made a Cloud API one: contacts holding real message ids, for Meta's statuses to name.
 * `wamids` in the order of the ids' text.
 */
export async function completedCloudCampaign(
  app: INestApplication,
  fake: FakeEvolutionApi,
  company: TestCompany,
  contacts: Array<{ phoneNumber: string; name: string }>,
): Promise<{ cloud: CloudNumber; campaignId: number; wamids: string[] }> {
  const config = await trackedConfig(company, fake);
  const campaign = await startCampaign(company, config.id, { contacts });
  await waitForCampaign(company, campaign.id, (c) => c.status === 'COMPLETED');
  const cloud = await makeCloudNumber(app, { id: config.id, companyId: company.id });
  const { rows } = await db().query<{ id: string }>(
    `SELECT gateway_message_id AS id FROM campaign_contacts WHERE campaign_id = $1
      ORDER BY gateway_message_id`,
    [campaign.id],
  );
  return { cloud, campaignId: campaign.id, wamids: rows.map((row) => row.id) };
}
