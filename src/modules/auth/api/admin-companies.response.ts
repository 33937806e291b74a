import { ApiProperty } from '@nestjs/swagger';
import { ApiNullableObject } from '../../../common/http/api-nullable.decorator';
import type { AdminCompanyView } from '../application/companies-admin.service';
import { SubscriptionFieldsResponse, toSubscriptionFields } from './auth.response';

export class AdminCompanyResponse {
  @ApiProperty() id!: number;
  @ApiProperty() name!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ example: 'admin_password' }) registrationType!: string;
  @ApiProperty() isActive!: boolean;
  @ApiProperty() blockedContactsEnabled!: boolean;
  @ApiProperty() pollCampaignsEnabled!: boolean;
  @ApiProperty() automationsEnabled!: boolean;
  @ApiProperty({ description: 'Efetivo (do cadastro ou o padrão do sistema)' })
  automationLimit!: number;
  @ApiProperty() databaseLimit!: number;
  @ApiProperty() rateLimitPerMinute!: number;
  @ApiProperty() rateLimitPerHour!: number;
  @ApiProperty() campaignCreationsPerHour!: number;
  @ApiProperty({ description: 'Verdadeiro quando a empresa pode usar o serviço' })
  hasServiceAccess!: boolean;
  @ApiNullableObject(SubscriptionFieldsResponse)
  subscription!: SubscriptionFieldsResponse | null;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
}

export function toAdminCompanyResponse(view: AdminCompanyView): AdminCompanyResponse {
  const { company, subscription, limits } = view;
  return {
    id: company.id,
    name: company.name,
    email: company.email,
    registrationType: company.registrationType,
    isActive: company.isActive,
    blockedContactsEnabled: company.blockedContactsEnabled,
    pollCampaignsEnabled: company.pollCampaignsEnabled,
    automationsEnabled: company.automationsEnabled,
    automationLimit: limits.automationLimit,
    databaseLimit: limits.databaseLimit,
    rateLimitPerMinute: limits.rateLimitPerMinute,
    rateLimitPerHour: limits.rateLimitPerHour,
    campaignCreationsPerHour: limits.campaignCreationsPerHour,
    hasServiceAccess: company.hasServiceAccess(subscription),
    subscription: subscription ? toSubscriptionFields(subscription) : null,
    createdAt: company.createdAt.toISOString(),
    updatedAt: company.updatedAt.toISOString(),
  };
}
