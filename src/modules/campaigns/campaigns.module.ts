import { UserDatabasesModule } from '../user-databases/user-databases.module';
import { OutboxModule } from '../outbox/outbox.module';
import { NoticesModule } from '../notices/notices.module';
import { GatewayModule } from '../gateway/gateway.module';
import { AuthModule } from '../auth/auth.module';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CampaignsController } from './api/campaigns.controller';
import { CampaignReportsController } from './api/campaign-reports.controller';
import { CampaignReportsService } from './application/campaign-reports.service';
import { CampaignReportsRepository } from './infrastructure/campaign-reports.repository';
import { CampaignContactsController } from './api/campaign-contacts.controller';
import { CampaignDraftsController } from './api/campaign-drafts.controller';
import { CampaignDraftsService } from './application/campaign-drafts.service';
import { CampaignDraftStore } from './application/campaign-draft-store';
import { CampaignDraftsRepository } from './infrastructure/campaign-drafts.repository';
import { CampaignCopiesController } from './api/campaign-copies.controller';
import { CampaignCopiesService } from './application/campaign-copies.service';
import { CampaignDeletionsWorker } from './application/campaign-deletions.worker';
import { CampaignCopiesRepository } from './infrastructure/campaign-copies.repository';
import { CampaignDeletionsRepository } from './infrastructure/campaign-deletions.repository';
import { campaignDeletionsRetention } from './infrastructure/campaign-deletions.retention';
import { CampaignContactsService } from './application/campaign-contacts.service';
import { CampaignContactsRepository } from './infrastructure/campaign-contacts.repository';
import { CampaignDispatcher } from './application/campaign-dispatcher';
import { CampaignEngineTransitions } from './application/campaign-engine-transitions';
import { CampaignMessageSender } from './application/campaign-message.sender';
import { CampaignGatewayCheck } from './application/campaign-gateway-check';
import { CampaignGatewayTargets } from './application/campaign-gateway-targets';
import { campaignGatewayUsage } from './application/campaign-gateway-usage';
import { CampaignDeliveryEvents } from './application/campaign-delivery-events';
import { CampaignLifecycle } from './application/campaign-lifecycle';
import { CampaignRuns } from './application/campaign-runs.service';
import { CampaignMediaCheck } from './application/campaign-media.check';
import { CampaignTemplateCheck } from './application/campaign-template.check';
import { CampaignCostEstimates } from './application/campaign-cost-estimates';
import { CampaignsService } from './application/campaigns.service';
import { ContactVariablesProvider } from './application/contact-variables.provider';
import { DispatchWorker } from './application/dispatch-worker';
import { SenderPoolsWorker } from './application/sender-pools.worker';
import { CampaignPools } from './application/campaign-pools';
import { GatewayMediaPreparer } from './application/gateway-media.preparer';
import { SendOutcomeRecorder } from './application/send-outcome.recorder';
import { ThroughputOutcomesRecorder } from './application/throughput-outcomes.recorder';
import { ThroughputTurns } from './application/throughput-turns';
import { DispatchBatchRepository } from './infrastructure/dispatch-batch.repository';
import { SendReconciler } from './application/send-reconciler';
import { SystemContactsFeed } from './application/system-contacts-feed';
import { Campaign } from './domain/campaign.entity';
import { CampaignsRepository } from './infrastructure/campaigns.repository';
import { ReachOutRepository } from './infrastructure/reach-out.repository';
import { CustomerServiceWindowRepository } from './infrastructure/customer-service-window.repository';
import { DeliveryReceiptsRepository } from './infrastructure/delivery-receipts.repository';
import { DispatchClaimRepository } from './infrastructure/dispatch-claim.repository';
import { SenderPoolsRepository } from './infrastructure/sender-pools.repository';
import { SenderFailoverRepository } from './infrastructure/sender-failover.repository';
import { DispatchOutcomeRepository } from './infrastructure/dispatch-outcome.repository';
import { DispatchLeaseRepository } from './infrastructure/dispatch-lease.repository';
import { DispatchMonitoringRepository } from './infrastructure/dispatch-monitoring.repository';
import { UnrecordedSentRepository } from './infrastructure/unrecorded-sent.repository';
import { ReconciliationRepository } from './infrastructure/reconciliation.repository';
import { MediaModule } from '../media/media.module';
import { UserDatabaseContactVariables } from '../user-databases/application/user-database-contact-variables';

@Module({
  imports: [
    TypeOrmModule.forFeature([Campaign]),
    AuthModule,
    GatewayModule,
    MediaModule,
    NoticesModule,
    OutboxModule,
    UserDatabasesModule,
  ],
  // CampaignReportsController first: its `report` must not be taken for CampaignsController's `:id`.
  controllers: [
    CampaignReportsController,
    CampaignsController,
    CampaignContactsController,
    CampaignDraftsController,
    CampaignCopiesController,
  ],
  providers: [
    CampaignsService,
    CampaignDraftsService,
    CampaignDraftStore,
    CampaignDraftsRepository,
    CampaignContactsService,
    CampaignContactsRepository,
    CampaignReportsService,
    CampaignReportsRepository,
    CampaignGatewayCheck,
    CampaignsRepository,
    DispatchClaimRepository,
    SenderPoolsRepository,
    SenderFailoverRepository,
    CampaignPools,
    DispatchOutcomeRepository,
    DispatchLeaseRepository,
    DispatchMonitoringRepository,
    UnrecordedSentRepository,
    CampaignDispatcher,
    CampaignMessageSender,
    SendOutcomeRecorder,
    DispatchBatchRepository,
    ThroughputTurns,
    ThroughputOutcomesRecorder,
    CampaignEngineTransitions,
    GatewayMediaPreparer,
    CampaignTemplateCheck,
    CampaignCostEstimates,
    CampaignMediaCheck,
    CampaignDeliveryEvents,
    DeliveryReceiptsRepository,
    CustomerServiceWindowRepository,
    ReachOutRepository,
    DispatchWorker,
    SenderPoolsWorker,
    SystemContactsFeed,
    SendReconciler,
    ReconciliationRepository,
    CampaignGatewayTargets,
    campaignGatewayUsage,
    CampaignLifecycle,
    CampaignRuns,
    CampaignCopiesService,
    CampaignCopiesRepository,
    CampaignDeletionsRepository,
    CampaignDeletionsWorker,
    campaignDeletionsRetention,
    { provide: ContactVariablesProvider, useExisting: UserDatabaseContactVariables },
  ],
  exports: [
    DispatchWorker,
    CampaignLifecycle,
    CampaignRuns,
    CampaignGatewayCheck,
    CampaignMediaCheck,
    CampaignTemplateCheck,
    GatewayMediaPreparer,
    CampaignDeliveryEvents,
  ],
})
export class CampaignsModule {}
