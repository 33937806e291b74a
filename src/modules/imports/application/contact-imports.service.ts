import { Injectable } from '@nestjs/common';
import { Clock } from '../../../common/time/clock';
import {
  ContactImportRequest,
  ImportResult,
  PushImports,
} from '../../user-databases/application/push-imports.service';
import type { ImportJob } from '../domain/import-job.entity';
import { ImportJobsRepository } from '../infrastructure/import-jobs.repository';

/**
 * Push imports as the API takes them: at once (201), through the user-databases module's
 * PushImports, or queued as an ImportJob (202) for the ImportJobWorker.
 */
@Injectable()
export class ContactImportsService {
  constructor(
    private readonly pushImports: PushImports,
    private readonly jobs: ImportJobsRepository,
    private readonly clock: Clock,
  ) {}

  /** The synchronous import (201). */
  importNow(companyId: number, request: ContactImportRequest): Promise<ImportResult> {
    return this.pushImports.importNow(companyId, request);
  }

  /** Queues the import (202), once what can be refused at once has passed. */
  async submit(companyId: number, request: ContactImportRequest): Promise<ImportJob> {
    await this.pushImports.assertCanReceive(companyId, request.databaseId);
    return this.jobs.submit({
      companyId,
      kind: request.kind,
      payload: request,
      totalRows: request.rows.length,
      databaseId: request.databaseId,
      submittedAt: this.clock.now(),
    });
  }

  job(companyId: number, jobId: number): Promise<ImportJob> {
    return this.jobs.findOwnedOrFail(companyId, jobId);
  }
}
