import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UserDatabasesModule } from '../user-databases/user-databases.module';
import { ContactImportsController } from './api/contact-imports.controller';
import { ContactImportsService } from './application/contact-imports.service';
import { ImportJobWorker } from './application/import-job-worker';
import { ImportJob } from './domain/import-job.entity';
import { ImportJobsRepository } from './infrastructure/import-jobs.repository';
import { importJobsRetention } from './infrastructure/import-jobs.retention';

/**
 * Push imports (…/imports/contacts): taken at once or queued as import jobs, which the
 * ImportJobWorker runs. The rows land in databases through UserDatabasesModule's PushImports.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ImportJob]), UserDatabasesModule],
  controllers: [ContactImportsController],
  providers: [ContactImportsService, importJobsRetention, ImportJobWorker, ImportJobsRepository],
})
export class ImportsModule {}
