import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '../../../database/query-rows';
import type {
  GatewayTemplate,
  ListedTemplate,
  TemplateHeaderFormat,
} from '../domain/gateway-template';

interface TemplateRow {
  name: string;
  language: string;
  category: string;
  status: string;
  components: unknown[];
  body_parameters: number;
  header_parameters: number;
  header_format: TemplateHeaderFormat | null;
}

const COLUMNS = `name, language, category, status, components, body_parameters,
  header_parameters, header_format`;

function templateOf(row: TemplateRow): GatewayTemplate {
  return {
    name: row.name,
    language: row.language,
    category: row.category,
    status: row.status,
    components: row.components,
    bodyParameters: row.body_parameters,
    headerParameters: row.header_parameters,
    headerFormat: row.header_format,
  };
}

/** gateway_templates: a configuration's templates as Meta last listed them, replaced whole. */
@Injectable()
export class GatewayTemplatesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** By name then language; the unique (gateway_config_id, name, language) index serves it. */
  async listOf(companyId: number, gatewayConfigId: number): Promise<GatewayTemplate[]> {
    const rows = await queryRows<TemplateRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM gateway_templates
        WHERE gateway_config_id = $1 AND company_id = $2 ORDER BY name, language`,
      [gatewayConfigId, companyId],
    );
    return rows.map(templateOf);
  }

  async find(
    companyId: number,
    gatewayConfigId: number,
    name: string,
    language: string,
  ): Promise<GatewayTemplate | null> {
    const [row] = await queryRows<TemplateRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM gateway_templates
        WHERE gateway_config_id = $1 AND name = $2 AND language = $3 AND company_id = $4`,
      [gatewayConfigId, name, language, companyId],
    );
    return row ? templateOf(row) : null;
  }

  /**
   * The configuration's templates become exactly `templates`, in one transaction of two
   * statements. The configuration's row is locked first so that two refreshes at once take
   * turns instead of colliding on the unique index; a configuration deleted meanwhile stores
   * nothing.
   */
  async replace(
    companyId: number,
    gatewayConfigId: number,
    templates: ListedTemplate[],
    now: Date,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const owned = await queryRows(
        manager,
        `SELECT id FROM gateway_configs WHERE id = $1 AND company_id = $2 FOR UPDATE`,
        [gatewayConfigId, companyId],
      );
      if (owned.length === 0) {
        return;
      }
      await manager.query(`DELETE FROM gateway_templates WHERE gateway_config_id = $1`, [
        gatewayConfigId,
      ]);
      await manager.query(
        `INSERT INTO gateway_templates (gateway_config_id, company_id, meta_id, name, language,
                category, status, components, body_parameters, header_parameters, header_format,
                refreshed_at)
         SELECT $1, $2, t.meta_id, t.name, t.language, t.category, t.status, t.components,
                t.body_parameters, t.header_parameters, t.header_format, $4
           FROM jsonb_to_recordset($3::jsonb) AS t(meta_id text, name text, language text,
                category text, status text, components jsonb, body_parameters int,
                header_parameters int, header_format text)
         ON CONFLICT (gateway_config_id, name, language) DO NOTHING`,
        [gatewayConfigId, companyId, JSON.stringify(templates.map(rowOf)), now],
      );
    });
  }
}

/** Meta's limits (512-character names, 15-character language codes) bound what is stored. */
function rowOf(template: ListedTemplate): Record<string, unknown> {
  return {
    meta_id: template.metaId.slice(0, 64),
    name: template.name.slice(0, 512),
    language: template.language.slice(0, 15),
    category: template.category.slice(0, 20),
    status: template.status.slice(0, 20),
    components: template.components,
    body_parameters: template.bodyParameters,
    header_parameters: template.headerParameters,
    header_format: template.headerFormat,
  };
}
