import { Module } from '@nestjs/common';
import { RetentionJobs } from './application/retention-jobs';
import { RetentionRepository } from './infrastructure/retention.repository';

/** The scheduled jobs that keep every growing table bounded (README, "Retention"). */
@Module({ providers: [RetentionJobs, RetentionRepository], exports: [RetentionJobs] })
export class RetentionModule {}
