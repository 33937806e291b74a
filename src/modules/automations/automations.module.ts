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
import { AutomationGatewayUsage } from './application/automation-gateway-usage';
import { AutomationRunRecorder } from './application/automation-run-recorder';
import { AutomationRunner } from './application/automation-runner';
import { AutomationScheduler } from './application/automation-scheduler';
import { AutomationsService } from './application/automations.service';
import { Automation } from './domain/automation.entity';
import { AutomationsRepository } from './application/ports/automations.repository';
import { PgAutomationsRepository } from './infrastructure/automations.repository';
import { UserDatabaseColumnsAdapter } from './infrastructure/user-database-columns.adapter';
import { AutomationRunsRepository } from './application/ports/automation-runs.repository';
import { RecipientSelection } from './application/ports/recipient-selection';
import { PgAutomationRunsRepository } from './infrastructure/automation-runs.repository';
import { PgRecipientSelection } from './infrastructure/automation-selection';
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
    { provide: AutomationsRepository, useClass: PgAutomationsRepository },
    { provide: AutomationRunsRepository, useClass: PgAutomationRunsRepository },
    { provide: RecipientSelection, useClass: PgRecipientSelection },
    AutomationRunner,
    AutomationRunRecorder,
    AutomationScheduler,
    AutomationGatewayUsage,
    AutomationsEnabledGuard,
    { provide: AutomationDatabases, useClass: UserDatabaseColumnsAdapter },
  ],
})
export class AutomationsModule {}
