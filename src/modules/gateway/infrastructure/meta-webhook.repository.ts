import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '../../../database/query-rows';

/** A Cloud API configuration as Meta's webhooks need it; its secrets still sealed. */
export interface CloudWebhookConfig {
  id: number;
  companyId: number;
  /** The phone number id (the configuration's `instance`). */
  phoneNumberId: string;
  businessAccountId: string;
  displayPhoneNumber: string | null;
  appSecretEncrypted: string;
  webhookVerifyToken: string;
}

const CLOUD_COLUMNS = `id, company_id AS "companyId", instance AS "phoneNumberId",
  business_account_id AS "businessAccountId", display_phone_number AS "displayPhoneNumber",
  app_secret_encrypted AS "appSecretEncrypted", webhook_verify_token AS "webhookVerifyToken"`;

/**
 * What Meta's webhooks read and write of the Cloud API configurations and their templates:
 * plain SQL, each statement scoped to one company.
 */
@Injectable()
export class MetaWebhookRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findCloudConfig(id: number): Promise<CloudWebhookConfig | null> {
    const rows = await queryRows<CloudWebhookConfig>(
      this.dataSource,
      `SELECT ${CLOUD_COLUMNS} FROM gateway_configs WHERE id = $1 AND provider = 'CLOUD_API'`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** The company's configuration of that phone number id (gateway_configs_cloud_number_idx). */
  async findCloudNumber(companyId: number, phoneNumberId: string): Promise<number | null> {
    const rows = await queryRows<{ id: number }>(
      this.dataSource,
      `SELECT id FROM gateway_configs
        WHERE company_id = $1 AND instance = $2 AND provider = 'CLOUD_API'
        ORDER BY id LIMIT 1`,
      [companyId, phoneNumberId],
    );
    return rows[0]?.id ?? null;
  }

  /**
   * The company's configurations on the business account whose display number has these
   * digits (Meta's quality webhook names the number only by its display form).
   */
  async findByDisplayNumber(
    companyId: number,
    businessAccountId: string,
    digits: string,
  ): Promise<number[]> {
    const rows = await queryRows<{ id: number }>(
      this.dataSource,
      `SELECT id FROM gateway_configs
        WHERE company_id = $1 AND provider = 'CLOUD_API' AND business_account_id = $2
          AND regexp_replace(display_phone_number, '\\D', '', 'g') = $3`,
      [companyId, businessAccountId, digits],
    );
    return rows.map((row) => row.id);
  }

  /**
   * The template's status on every configuration of the company on that business account,
   * unless a newer reading (a refresh, a later webhook) was recorded. Answers the
   * configurations of the business account, and whether the status was news to any of them
   * (true too when the template was never listed: nothing newer is known). Meta's times are
   * whole seconds: a reading within the same second is not taken as newer.
   */
  async recordTemplateStatus(
    companyId: number,
    businessAccountId: string,
    template: { name: string; language: string; status: string; at: Date },
  ): Promise<{ configIds: number[]; applied: boolean }> {
    const rows = await queryRows<{ id: number; listed: boolean; applied: boolean }>(
      this.dataSource,
      `WITH configs AS (
         SELECT id FROM gateway_configs
          WHERE company_id = $1 AND provider = 'CLOUD_API' AND business_account_id = $2),
       listed AS (
         SELECT t.id, date_trunc('second', t.refreshed_at) <= $6 AS newer FROM gateway_templates t
          WHERE t.company_id = $1 AND t.gateway_config_id IN (SELECT id FROM configs)
            AND t.name = $3 AND t.language = $4
          FOR UPDATE),
       updated AS (
         UPDATE gateway_templates t SET status = $5, refreshed_at = $6
          FROM listed WHERE t.id = listed.id AND listed.newer
          RETURNING t.id)
       SELECT configs.id,
              EXISTS (SELECT 1 FROM listed) AS listed,
              EXISTS (SELECT 1 FROM updated) AS applied
         FROM configs`,
      [
        companyId,
        businessAccountId,
        template.name,
        template.language,
        template.status,
        template.at,
      ],
    );
    return {
      configIds: rows.map((row) => row.id),
      applied: rows.some((row) => row.applied || !row.listed),
    };
  }

  /**
   * The number's quality and tier as Meta reported them at `at`, unless a newer reading was
   * recorded; null fields keep what is known. True when the report was news.
   */
  async recordNumberQuality(
    configId: number,
    report: { qualityRating: string | null; messagingLimitTier: string | null; at: Date },
  ): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.dataSource,
      `UPDATE gateway_configs
          SET quality_rating = coalesce($2, quality_rating),
              messaging_limit_tier = coalesce($3, messaging_limit_tier),
              number_checked_at = $4
        WHERE id = $1 AND provider = 'CLOUD_API'
          AND (number_checked_at IS NULL OR date_trunc('second', number_checked_at) <= $4)
        RETURNING id`,
      [configId, report.qualityRating, report.messagingLimitTier, report.at],
    );
    return rows.length > 0;
  }
}
