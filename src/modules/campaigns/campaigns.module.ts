import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CampaignsController } from './api/campaigns.controller';
import { CampaignDispatcher } from './application/campaign-dispatcher';
import { CampaignGatewayTargets } from './application/campaign-gateway-targets';
import { CampaignGatewayUsage } from './application/campaign-gateway-usage';
import { CampaignDeliveryEvents } from './application/campaign-delivery-events';
import { CampaignLifecycle } from './application/campaign-lifecycle';
import { CampaignMediaCheck } from './application/campaign-media.check';
import { CampaignsService } from './application/campaigns.service';
import { ContactVariablesProvider } from './application/contact-variables.provider';
import { DispatchWorker } from './application/dispatch-worker';
import { GatewayMediaPreparer } from './application/gateway-media.preparer';
import { SendReconciler } from './application/send-reconciler';
import { SystemContactsFeed } from './application/system-contacts-feed';
import { Campaign } from './domain/campaign.entity';
import { CampaignsRepository } from './infrastructure/campaigns.repository';
import { DeliveryReceiptsRepository } from './infrastructure/delivery-receipts.repository';
import { DispatchRepository } from './infrastructure/dispatch.repository';
import { ReconciliationRepository } from './infrastructure/reconciliation.repository';
import { MediaModule } from '../media/media.module';
import { UserDatabaseContactVariables } from '../user-databases/application/user-database-contact-variables';

@Module({
  imports: [TypeOrmModule.forFeature([Campaign]), MediaModule],
  controllers: [CampaignsController],
  providers: [
    CampaignsService,
    CampaignsRepository,
    DispatchRepository,
    CampaignDispatcher,
    GatewayMediaPreparer,
    CampaignMediaCheck,
    CampaignDeliveryEvents,
    DeliveryReceiptsRepository,
    DispatchWorker,
    SystemContactsFeed,
    SendReconciler,
    ReconciliationRepository,
    CampaignGatewayTargets,
    CampaignGatewayUsage,
    CampaignLifecycle,
    { provide: ContactVariablesProvider, useExisting: UserDatabaseContactVariables },
  ],
  exports: [
    DispatchWorker,
    CampaignLifecycle,
    CampaignMediaCheck,
    GatewayMediaPreparer,
    CampaignDeliveryEvents,
  ],
})
export class CampaignsModule {}
