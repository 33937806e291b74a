import { ApiProperty } from '@nestjs/swagger';
import type {
  ConfigDay,
  GatewayInstanceStatus,
  InstanceDay,
} from '../application/gateway-configs.service';
import {
  EVENTS_REFUSALS,
  GATEWAY_PROVIDERS,
  type EventsRefusal,
  type GatewayConfig,
  type GatewayProvider,
} from '../domain/gateway-config.entity';
import {
  TEMPLATE_HEADER_FORMATS,
  type GatewayTemplate,
  type TemplateHeaderFormat,
} from '../domain/gateway-template';
import type { ActiveSenders } from '../application/gateway-config-usage.registry';
import type { InstanceUsage } from '../application/ports/instance-pacing';
import type { ReachOutCause, ReachOutLock, ReachOutScope } from '../domain/reach-out-lock';
import { ApiNullableObject } from '../../../common/http/api-nullable.decorator';

/** The reach-out lock in force (WhatsApp's error 463): who the instance may still message. */
export class ReachOutLockResponse {
  @ApiProperty({
    enum: ['COLD', 'ALL'],
    description:
      'COLD: envia só a contatos quentes (que conversaram com o número há pouco); ALL: não envia nada',
  })
  scope!: ReachOutScope;
  @ApiProperty({
    enum: ['NACK_463', 'REFUSALS', 'WARM_REFUSED'],
    description:
      'NACK_463: o WhatsApp recusou com o erro 463; REFUSALS: recusas seguidas a contatos frios; WARM_REFUSED: recusou também um contato quente',
  })
  cause!: ReachOutCause;
  @ApiProperty({ example: '2026-11-24T12:00:00.000Z' }) lockedAt!: string;
  @ApiProperty({
    example: '2026-11-25T12:00:00.000Z',
    description: 'Quando o bloqueio acaba (o dobro do anterior quando se repete em até 7 dias)',
  })
  lockedUntil!: string;
}

function toReachOutLockResponse(lock: ReachOutLock | null): ReachOutLockResponse | null {
  return (
    lock && {
      scope: lock.scope,
      cause: lock.cause,
      lockedAt: lock.lockedAt.toISOString(),
      lockedUntil: lock.lockedUntil.toISOString(),
    }
  );
}

/** The API key, the access token and the app secret are write-only: never part of a response. */
export class GatewayConfigResponse {
  @ApiProperty({ example: 7 }) id!: number;
  @ApiProperty({ enum: GATEWAY_PROVIDERS, example: 'EVOLUTION' }) provider!: GatewayProvider;
  @ApiProperty({ example: 'Vendas - WhatsApp principal' }) name!: string;
  @ApiProperty({ example: 'https://gw.example.com' }) url!: string;
  @ApiProperty({ example: 'acme-sales' }) instance!: string;
  @ApiProperty({
    example: false,
    description:
      'O webhook deste serviço está registrado na instância (recibos, descadastro, estado)',
  })
  trackDelivery!: boolean;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'open',
    description:
      'Estado da instância segundo o último evento connection.update, a última verificação (status, criação ou retomada de campanha) ou o último envio que o provou: open, connecting, close, unknown, ou not_paired (nunca pareada: leia o QR code da instância; fica até ela abrir)',
  })
  instanceState!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: null,
    description:
      'Quando o último evento do gateway com o segredo certo foi recusado por nomear outra instância ou outra chave (apikey); null: nenhum desde que o rastreamento foi ativado',
  })
  eventsRefusedAt!: string | null;
  @ApiProperty({
    nullable: true,
    enum: [...EVENTS_REFUSALS, null],
    example: null,
    description:
      'Por que: INSTANCE_MISMATCH (outra instância) ou APIKEY_MISMATCH (apikey que não é a chave da configuração nem o token da instância)',
  })
  eventsRefusedReason!: EventsRefusal | null;
  @ApiNullableObject(ReachOutLockResponse, {
    description:
      'O bloqueio do WhatsApp a quem não conversa com o número (erro 463), enquanto durar; null: nenhum. DELETE /api/gateway-configs/{id}/restriction o encerra',
  })
  reachOutLock!: ReachOutLockResponse | null;
  @ApiProperty({ nullable: true, type: Number, example: 1000 }) dailyLimit!: number | null;
  @ApiProperty({ nullable: true, type: Number, example: 50 }) warmupStartPerDay!: number | null;
  @ApiProperty({ nullable: true, type: Number, example: 20 }) warmupGrowthPercent!: number | null;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) createdAt!: string;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) updatedAt!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    example: '106540352242922',
    description: 'CLOUD_API: o id do número (também em instance); null em EVOLUTION',
  })
  phoneNumberId!: string | null;
  @ApiProperty({ nullable: true, type: String, example: '102290129340398' })
  businessAccountId!: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'v27.0' }) apiVersion!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: '+55 11 98765-4321',
    description: 'CLOUD_API: o número como a Meta o mostra (última verificação ou webhook)',
  })
  displayPhoneNumber!: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'Acme Vendas' })
  verifiedName!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'GREEN',
    description: 'CLOUD_API: GREEN, YELLOW, RED ou UNKNOWN',
  })
  qualityRating!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'TIER_1K',
    description:
      'CLOUD_API: quantas pessoas distintas o número pode contatar em 24 h (TIER_250 … TIER_UNLIMITED)',
  })
  messagingLimitTier!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'CLOUD_API: quando a Meta foi consultada',
  })
  numberCheckedAt!: string | null;
  @ApiProperty({ nullable: true, type: Number, example: 80 })
  throughputPerSecond!: number | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'https://campanhas.example.com/api/gateway-events/7',
    description:
      'CLOUD_API: a URL de retorno (Callback URL) a cadastrar nos webhooks do app na Meta; null em EVOLUTION',
  })
  webhookUrl!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'CLOUD_API: o token de verificação (Verify token) a cadastrar na Meta com webhookUrl; null em EVOLUTION',
  })
  webhookVerifyToken!: string | null;
}

export class ActiveSendersResponse {
  @ApiProperty({ example: 2 }) campaigns!: number;
  @ApiProperty({ example: 1 }) automationRuns!: number;
}

/** Why sending through an instance waits: what it sent today, what it may, who sends. */
export class GatewayUsageResponse {
  @ApiProperty({ example: '2026-11-24', description: 'Dia local (APP_TIMEZONE) das contagens' })
  day!: string;
  @ApiProperty({ example: 120 }) messagesToday!: number;
  @ApiProperty({ nullable: true, type: Number, example: 1000 }) dailyLimit!: number | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    example: 72,
    description: 'O limite do aquecimento hoje; null sem aquecimento',
  })
  warmupLimitToday!: number | null;
  @ApiProperty({ nullable: true, type: Number, example: 3, description: 'Dia do aquecimento' })
  warmupDay!: number | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    example: 72,
    description: 'O menor dos dois: o que a instância pode enviar hoje; null: sem limite',
  })
  limitToday!: number | null;
  @ApiProperty({ nullable: true, type: Number, example: 0 }) remainingToday!: number | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    example: 1000,
    description:
      'CLOUD_API: quantas pessoas distintas o número pode contatar em 24 h (o seu messagingLimitTier); null: sem limite conhecido',
  })
  recipientCap!: number | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    example: 640,
    description:
      'CLOUD_API: pessoas contatadas nas últimas 24 h (quem recebeu duas vezes conta duas); null sem recipientCap',
  })
  recipientsLast24h!: number | null;
  @ApiProperty({ type: ActiveSendersResponse }) activeSenders!: ActiveSendersResponse;
  @ApiProperty({
    nullable: true,
    type: String,
    example: '2026-11-24T14:03:05.120Z',
    description:
      'Quando a instância pode enviar a próxima mensagem (a última mais a menor pausa dos remetentes ativos); null: já pode',
  })
  nextSlotAt!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'A última mensagem da instância' })
  lastMessageAt!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'O primeiro envio da instância' })
  firstSendAt!: string | null;
  @ApiNullableObject(ReachOutLockResponse, {
    description: 'O bloqueio a quem não conversa com o número; null: nenhum',
  })
  reachOutLock!: ReachOutLockResponse | null;
}

/** The last message plus the shortest pause of the active senders, when that is still ahead. */
function nextSlotOf(usage: InstanceUsage & { activeSenders: ActiveSenders }): string | null {
  const { lastMessageAt } = usage;
  const pause = usage.activeSenders.shortestPauseSeconds;
  if (!lastMessageAt || pause === null) {
    return null;
  }
  const slot = new Date(new Date(lastMessageAt).getTime() + pause * 1000);
  return slot.getTime() > Date.now() ? slot.toISOString() : null;
}

export function toGatewayUsageResponse(usage: InstanceDay): GatewayUsageResponse {
  return {
    day: usage.day,
    messagesToday: usage.messagesToday,
    dailyLimit: usage.dailyLimit,
    warmupLimitToday: usage.warmupLimitToday,
    warmupDay: usage.warmupDay,
    limitToday: usage.limitToday,
    remainingToday:
      usage.limitToday === null ? null : Math.max(0, usage.limitToday - usage.messagesToday),
    recipientCap: usage.recipientCap,
    recipientsLast24h: usage.recipientsLast24h,
    activeSenders: {
      campaigns: usage.activeSenders.campaigns,
      automationRuns: usage.activeSenders.automationRuns,
    },
    nextSlotAt: nextSlotOf(usage),
    lastMessageAt: usage.lastMessageAt ? new Date(usage.lastMessageAt).toISOString() : null,
    firstSendAt: usage.firstSendAt ? new Date(usage.firstSendAt).toISOString() : null,
    reachOutLock: toReachOutLockResponse(usage.reachOutLock),
  };
}

/** One configuration in the company's usage view: which one, and its usage as {id}/usage has it. */
export class GatewayConfigDayResponse extends GatewayUsageResponse {
  @ApiProperty({ example: 7 }) gatewayConfigId!: number;
  @ApiProperty({ example: 'Vendas - WhatsApp principal' }) name!: string;
  @ApiProperty({ example: 'acme-sales' }) instance!: string;
}

export function toGatewayConfigDayResponse({ config, day }: ConfigDay): GatewayConfigDayResponse {
  return {
    gatewayConfigId: config.id,
    name: config.name,
    instance: config.instance,
    ...toGatewayUsageResponse(day),
  };
}

export class GatewayStatusResponse {
  @ApiProperty({ example: 'acme-sales' }) instance!: string;
  @ApiProperty({
    example: 'open',
    enum: ['open', 'connecting', 'close', 'unknown'],
    description:
      'Estado informado pelo gateway; unknown quando a instância existe mas não está carregada',
  })
  state!: string;
  @ApiProperty({ example: '2026-11-22T12:00:05.000Z' }) checkedAt!: string;
}

/** `eventsUrl`: where the configuration's events are posted (shown for a Cloud API one). */
export function toGatewayConfigResponse(
  config: GatewayConfig,
  eventsUrl: string,
): GatewayConfigResponse {
  const cloud = config.provider === 'CLOUD_API';
  return {
    id: config.id,
    provider: config.provider,
    name: config.name,
    url: config.url,
    instance: config.instance,
    trackDelivery: config.trackDelivery,
    instanceState: config.instanceState,
    eventsRefusedAt: config.eventsRefusedAt?.toISOString() ?? null,
    eventsRefusedReason: config.eventsRefusedReason,
    reachOutLock: toReachOutLockResponse(config.reachOutLock),
    dailyLimit: config.dailyLimit,
    warmupStartPerDay: config.warmupStartPerDay,
    warmupGrowthPercent: config.warmupGrowthPercent,
    createdAt: config.createdAt.toISOString(),
    updatedAt: config.updatedAt.toISOString(),
    phoneNumberId: cloud ? config.instance : null,
    businessAccountId: config.businessAccountId,
    apiVersion: config.apiVersion,
    displayPhoneNumber: config.displayPhoneNumber,
    verifiedName: config.verifiedName,
    qualityRating: config.qualityRating,
    messagingLimitTier: config.messagingLimitTier,
    numberCheckedAt: config.numberCheckedAt?.toISOString() ?? null,
    throughputPerSecond: config.throughputPerSecond,
    webhookUrl: cloud ? eventsUrl : null,
    webhookVerifyToken: cloud ? config.webhookVerifyToken : null,
  };
}

/** A template of a Cloud API business account (GET /api/gateway-configs/{id}/templates). */
export class GatewayTemplateResponse {
  @ApiProperty({ example: 'boas_vindas' }) name!: string;
  @ApiProperty({ example: 'pt_BR' }) language!: string;
  @ApiProperty({ example: 'MARKETING', description: 'MARKETING, UTILITY ou AUTHENTICATION' })
  category!: string;
  @ApiProperty({
    example: 'APPROVED',
    description: 'APPROVED, PENDING, REJECTED, PAUSED, DISABLED…; só APPROVED pode ser enviado',
  })
  status!: string;
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'Os componentes do modelo exatamente como a Meta os lista',
  })
  components!: unknown[];
  @ApiProperty({ example: 2, description: 'Parâmetros do corpo ({{1}}, {{2}} ou nomeados)' })
  bodyParameters!: number;
  @ApiProperty({ example: 0, description: 'Parâmetros de texto do cabeçalho TEXT' })
  headerParameters!: number;
  @ApiProperty({
    nullable: true,
    enum: [...TEMPLATE_HEADER_FORMATS, null],
    example: 'IMAGE',
    description: 'Formato do cabeçalho; IMAGE, VIDEO e DOCUMENT pedem headerMedia na campanha',
  })
  headerFormat!: TemplateHeaderFormat | null;
}

export function toGatewayTemplateResponse(template: GatewayTemplate): GatewayTemplateResponse {
  return {
    name: template.name,
    language: template.language,
    category: template.category,
    status: template.status,
    components: template.components,
    bodyParameters: template.bodyParameters,
    headerParameters: template.headerParameters,
    headerFormat: template.headerFormat,
  };
}

export function toGatewayStatusResponse(status: GatewayInstanceStatus): GatewayStatusResponse {
  return {
    instance: status.instance,
    state: status.state,
    checkedAt: status.checkedAt.toISOString(),
  };
}
