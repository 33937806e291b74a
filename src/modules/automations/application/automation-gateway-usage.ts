import { gatewayConfigUsage } from '../../gateway/application/gateway-config-usage.registry';
import { AutomationsRepository } from '../infrastructure/automations.repository';

/** A gateway configuration cannot be deleted while an active automation sends through it. */
export const automationGatewayUsage = gatewayConfigUsage(AutomationsRepository, {
  reason: 'usada por uma automação ativa',
  inUse: (automations, companyId, configId) =>
    automations.anyActiveUsingGateway(companyId, configId),
});
