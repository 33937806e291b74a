import { GatewayModule } from '../gateway/gateway.module';
import { AuthModule } from '../auth/auth.module';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MultipartFormReceiver } from './api/multipart-form.receiver';
import { UserDatabaseRecordsController } from './api/user-database-records.controller';
import { UserDatabasesController } from './api/user-databases.controller';
import { FileImportsService } from './application/file-imports.service';
import { GatewaySyncService } from './application/gateway-sync.service';
import { LargeDatabaseIndexing } from './application/large-database-indexing';
import { PushImports } from './application/push-imports.service';
import { RecordIndexWorker } from './application/record-index-worker';
import { RecordsService } from './application/records.service';
import { SystemContactsRecorder } from './application/system-contacts.recorder';
import { UserDatabaseContactVariables } from './application/user-database-contact-variables';
import { UserDatabasesService } from './application/user-databases.service';
import { UserDatabase } from './domain/user-database.entity';
import { RecordIndexesRepository } from './application/ports/record-indexes.repository';
import { PgRecordIndexesRepository } from './infrastructure/record-indexes.repository';
import { RecordsRepository } from './infrastructure/records.repository';
import { SystemContactsRepository } from './infrastructure/system-contacts.repository';
import { UserDatabasesRepository } from './infrastructure/user-databases.repository';
import { TabularFiles } from './application/ports/tabular-files';
import { RecordBatches } from './infrastructure/record-batches.repository';
import { PushImportPlanner } from './application/ports/push-import-planner';
import { ThreadPushImportPlanner } from './infrastructure/push-import-planner/thread-push-import-planner';
import { SniffedTabularFiles } from './infrastructure/tabular/open-tabular-file';

/**
 * Contact databases: file uploads, records, gateway sync, the SYSTEM database, and the
 * import of pushed rows (PushImports, for the imports module). Campaigns read records through
 * UserDatabaseContactVariables and record sends through SystemContactsRecorder.
 */
@Module({
  imports: [TypeOrmModule.forFeature([UserDatabase]), AuthModule, GatewayModule],
  controllers: [UserDatabasesController, UserDatabaseRecordsController],
  providers: [
    MultipartFormReceiver,
    RecordBatches,
    { provide: TabularFiles, useClass: SniffedTabularFiles },
    { provide: PushImportPlanner, useClass: ThreadPushImportPlanner },
    UserDatabasesService,
    FileImportsService,
    RecordsService,
    PushImports,
    GatewaySyncService,
    SystemContactsRecorder,
    UserDatabaseContactVariables,
    RecordIndexWorker,
    LargeDatabaseIndexing,
    UserDatabasesRepository,
    RecordsRepository,
    SystemContactsRepository,
    { provide: RecordIndexesRepository, useClass: PgRecordIndexesRepository },
  ],
  exports: [
    SystemContactsRecorder,
    UserDatabaseContactVariables,
    UserDatabasesService,
    RecordsService,
    PushImports,
  ],
})
export class UserDatabasesModule {}
