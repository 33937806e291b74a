import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { AUTOMATION_RUN_LIFECYCLE } from '../../src/modules/automations/domain/automation-run';
import { CAMPAIGN_CONTACT_LIFECYCLE } from '../../src/modules/campaigns/domain/campaign-contact-status';
import { CAMPAIGN_LIFECYCLE } from '../../src/modules/campaigns/domain/campaign-status';
import { RETRYABLE_FAILURE_KINDS } from '../../src/modules/campaigns/domain/contact-failure-kind';
import { IMPORT_JOB_LIFECYCLE } from '../../src/modules/imports/domain/import-job.entity';
import { NOTICE_LIFECYCLE } from '../../src/modules/notices/domain/notice-status';
import {
  RECORD_INDEX_LIFECYCLE,
  RECORD_INDEX_STATES,
} from '../../src/modules/user-databases/domain/record-index-state';
import { USER_DATABASE_LIFECYCLE } from '../../src/modules/user-databases/domain/user-database-status';
import { WEBHOOK_DELIVERY_LIFECYCLE } from '../../src/modules/webhooks/domain/webhook-delivery';
import { literalStatusWrites, sqlTextsOf, statusLikeColumns } from './status-writes';

const SRC = join(__dirname, '..', '..', 'src');
const MIGRATIONS = join(SRC, 'database', 'migrations');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      return name === 'migrations' ? [] : sourceFiles(path);
    }
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('lifecycles', () => {
  const statusColumns = statusLikeColumns(
    readdirSync(MIGRATIONS).map((name) => readFileSync(join(MIGRATIONS, name), 'utf8')),
  );

  it('know every status-like column from the migrations', () => {
    expect(statusColumns).toEqual(expect.arrayContaining(['instance_state', 'state', 'status']));
  });

  it('write no status as a literal in SQL: every status written comes from a transition table', () => {
    const literalWrites = sourceFiles(SRC).flatMap((file) =>
      sqlTextsOf(file, readFileSync(file, 'utf8')).flatMap((sql) =>
        literalStatusWrites(sql, statusColumns).map((write) => `${relative(SRC, file)}: ${write}`),
      ),
    );
    expect(literalWrites).toEqual([]);
  });

  it("stamp the SYSTEM-contacts feed's order wherever a contact becomes SENT", () => {
    // The feed copies SENT contacts by the stamp alone: one left unstamped is never copied.
    const makesSent = /\$\{[\w.]*\b(deliver|arrive)\.to\}/i;
    const statements = sourceFiles(SRC).flatMap((file) =>
      sqlTextsOf(file, readFileSync(file, 'utf8'), 'as written')
        .filter((sql) => /UPDATE campaign_contacts/.test(sql) && makesSent.test(sql))
        .map((sql) => ({ file: relative(SRC, file), stamped: /SENT_STAMP|sent_xid =/.test(sql) })),
    );
    expect(statements.length).toBeGreaterThanOrEqual(5);
    expect(statements.filter((statement) => !statement.stamped)).toEqual([]);
  });

  it('at-most-once lifecycles never go back to sending from a state that may have sent', () => {
    // A contact or a notice whose send may have gone out is never taken again.
    expect(CAMPAIGN_CONTACT_LIFECYCLE.statusesAllowing('take')).toEqual(['PENDING']);
    expect(CAMPAIGN_CONTACT_LIFECYCLE.statusesAllowing('requeue')).toEqual(['SENDING']);
    expect(CAMPAIGN_CONTACT_LIFECYCLE.next('UNCERTAIN', 'requeue')).toBeUndefined();
    // A FAILED contact goes back only by a person's retry, whose SQL also guards on the
    // failure kind: an unknown outcome (it may have gone out) is never retried.
    expect(CAMPAIGN_CONTACT_LIFECYCLE.statusesAllowing('retry')).toEqual(['FAILED']);
    expect(RETRYABLE_FAILURE_KINDS).not.toContain('unknown_outcome');
    expect(NOTICE_LIFECYCLE.statusesAllowing('take')).toEqual(['PENDING']);
    expect(NOTICE_LIFECYCLE.next('SENT', 'retry')).toBeUndefined();
  });

  it('end runs, jobs and deliveries once: a finished one moves no more', () => {
    for (const action of ['complete', 'fail'] as const) {
      expect(AUTOMATION_RUN_LIFECYCLE.next('COMPLETED', action)).toBeUndefined();
      expect(AUTOMATION_RUN_LIFECYCLE.next('FAILED', action)).toBeUndefined();
      expect(IMPORT_JOB_LIFECYCLE.next('COMPLETED', action)).toBeUndefined();
    }
    for (const action of ['claim', 'deliver', 'retry', 'fail', 'expire'] as const) {
      expect(WEBHOOK_DELIVERY_LIFECYCLE.next('DELIVERED', action)).toBeUndefined();
      expect(WEBHOOK_DELIVERY_LIFECYCLE.next('FAILED', action)).toBeUndefined();
    }
  });

  it('lets an import job be taken over only while it is unfinished', () => {
    expect(IMPORT_JOB_LIFECYCLE.statusesAllowing('claim')).toEqual(['PENDING', 'RUNNING']);
    expect(IMPORT_JOB_LIFECYCLE.next('FAILED', 'claim')).toBeUndefined();
  });

  it('keeps a campaign terminal once completed, cancelled or failed, but for a person’s retry', () => {
    for (const terminal of ['COMPLETED', 'CANCELLED', 'FAILED'] as const) {
      for (const action of ['start', 'pause', 'resume', 'cancel', 'complete', 'fail'] as const) {
        expect(CAMPAIGN_LIFECYCLE.next(terminal, action)).toBeUndefined();
      }
    }
    expect(CAMPAIGN_LIFECYCLE.statusesAllowing('retry')).toEqual(['COMPLETED', 'FAILED']);
    expect(CAMPAIGN_LIFECYCLE.finalStatuses()).toEqual(['CANCELLED']);
  });

  it('builds or fails only a pending record index, and drops one in any state', () => {
    expect(RECORD_INDEX_LIFECYCLE.statusesAllowing('build')).toEqual(['PENDING']);
    expect(RECORD_INDEX_LIFECYCLE.statusesAllowing('fail')).toEqual(['PENDING']);
    for (const state of RECORD_INDEX_STATES) {
      expect(RECORD_INDEX_LIFECYCLE.next(state, 'drop')).toBe('DROP');
    }
  });

  it('toggles a database between ACTIVE and INACTIVE only', () => {
    expect(USER_DATABASE_LIFECYCLE.next('ACTIVE', 'toggle')).toBe('INACTIVE');
    expect(USER_DATABASE_LIFECYCLE.next('INACTIVE', 'toggle')).toBe('ACTIVE');
  });
});
