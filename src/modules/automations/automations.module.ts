import { UserDatabasesModule } from '../user-databases/user-databases.module';
import { NoticesModule } from '../notices/notices.module';
import { GatewayModule } from '../gateway/gateway.module';
import { AuthModule } from '../auth/auth.module';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { AutomationsController } from './api/automations.controller';
import { AutomationsEnabledGuard } from './api/automations-enabled.guard';
import { AutomationDatabases } from './application/ports/automation-databases.port';
import { automationGatewayUsage } from './application/automation-gateway-usage';
import { AutomationRunRecorder } from './application/automation-run-recorder';
import { AutomationRunner } from './application/automation-runner';
import { AutomationScheduler } from './application/automation-scheduler';
import { AutomationsService } from './application/automations.service';
import { Automation } from './domain/automation.entity';
import { AutomationsRepository } from './infrastructure/automations.repository';
import { UserDatabaseColumnsAdapter } from './infrastructure/user-database-columns.adapter';
import { AutomationRunsRepository } from './infrastructure/automation-runs.repository';
import { RecipientSelection } from './infrastructure/recipient-selection.repository';
import { automationRunsRetention } from './infrastructure/automation-runs.retention';

@Module({
  imports: [
    TypeOrmModule.forFeature([Automation]),
    AuthModule,
    CampaignsModule,
    GatewayModule,
    NoticesModule,
    UserDatabasesModule,
  ],
  controllers: [AutomationsController],
  providers: [
    AutomationsService,
    automationRunsRetention,
    AutomationsRepository,
    AutomationRunsRepository,
    RecipientSelection,
    AutomationRunner,
    AutomationRunRecorder,
    AutomationScheduler,
    automationGatewayUsage,
    AutomationsEnabledGuard,
    { provide: AutomationDatabases, useClass: UserDatabaseColumnsAdapter },
  ],
})
export class AutomationsModule {}
