import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import type { AuthenticatedCompany } from '../application/auth.service';
import type { CompanySubscription } from '../domain/company-subscription.entity';

export class AuthResponse {
  @ApiProperty({ example: 'q9J2m0sYc1h0fX3i7P5o3y8V0e6n1r2t3u4w5x6z7a8' }) accessToken!: string;
  @ApiProperty({ example: 'Access' }) tokenType!: 'Access';
  @ApiProperty({ example: 12 }) companyId!: number;
  @ApiProperty({ example: 'Loja da Maria' }) companyName!: string;
  @ApiProperty({ example: 'contato@lojadamaria.com.br' }) companyEmail!: string;
  @ApiProperty({ example: true }) blockedContactsEnabled!: boolean;
  @ApiProperty({ example: true }) pollCampaignsEnabled!: boolean;
  @ApiProperty({ example: true }) automationsEnabled!: boolean;
  @ApiProperty({ example: 10 }) automationLimit!: number;
  @ApiProperty({ nullable: true, example: null, type: String }) expiresAt!: null;
  @ApiProperty({ nullable: true, example: null, type: String }) message!: null;
}

export class SubscriptionFieldsResponse {
  @ApiPropertyOptional({ nullable: true, type: String }) subscriptionId!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) payerId!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: 'active' }) subscriptionStatus!:
    string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) subscriptionReason!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) externalReference!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) preapprovalPlanId!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: '2026-01-01T00:00:00.000Z' })
  subscriptionStartDate!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) nextPaymentDate!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) collectorId!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) subscriptionInitPoint!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: '99.90' }) transactionAmount!:
    string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: 'monthly' }) frequencyType!:
    string | null;
}

export class LoginResponse extends IntersectionType(AuthResponse, SubscriptionFieldsResponse) {}

export function toAuthResponse(result: AuthenticatedCompany): AuthResponse {
  const { company } = result;
  return {
    accessToken: result.accessToken,
    tokenType: 'Access',
    companyId: company.id,
    companyName: company.name,
    companyEmail: company.email,
    blockedContactsEnabled: company.blockedContactsEnabled,
    pollCampaignsEnabled: company.pollCampaignsEnabled,
    automationsEnabled: company.automationsEnabled,
    automationLimit: result.limits.automationLimit,
    expiresAt: null,
    message: null,
  };
}

export function toSubscriptionFields(
  subscription: CompanySubscription | null,
): SubscriptionFieldsResponse {
  return {
    subscriptionId: subscription?.subscriptionId ?? null,
    payerId: subscription?.payerId ?? null,
    subscriptionStatus: subscription?.subscriptionStatus ?? null,
    subscriptionReason: subscription?.subscriptionReason ?? null,
    externalReference: subscription?.externalReference ?? null,
    preapprovalPlanId: subscription?.preapprovalPlanId ?? null,
    subscriptionStartDate: subscription?.subscriptionStartDate?.toISOString() ?? null,
    nextPaymentDate: subscription?.nextPaymentDate?.toISOString() ?? null,
    collectorId: subscription?.collectorId ?? null,
    subscriptionInitPoint: subscription?.subscriptionInitPoint ?? null,
    transactionAmount: subscription?.transactionAmount ?? null,
    frequencyType: subscription?.frequencyType ?? null,
  };
}

/**
 * Login and me carry the subscription fields (null when there is none); register does not.
 * Object.assign, not a spread of both halves: V8 took ten times longer for the 23-field
 * spread (16 µs against 1.7 µs, stringify included), on every /api/auth/me.
 */
export function toLoginResponse(result: AuthenticatedCompany): LoginResponse {
  return Object.assign(toAuthResponse(result), toSubscriptionFields(result.subscription));
}
