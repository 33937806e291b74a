import type { TestCompany } from './test-app';
import { until } from './waiting';

/** A user database made by a generic push import (every column is text, the phone normalized). */
export async function importDatabase(
  company: TestCompany,
  rows: Array<Record<string, string>>,
  name = 'Clientes',
): Promise<{ id: number; columns: Array<{ columnName: string; isNameColumn: boolean }> }> {
  const response = await company.post(`/api/companies/${company.id}/imports/contacts/generic`, {
    name,
    rows,
  });
  if (response.status !== 201) {
    throw new Error(`import failed: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return response.body;
}

/**
 * A daily "Boas-vindas" automation that greets each record of `databaseConfigId` once, with no
 * pause between messages: for specs that need an automation's run, not a schedule.
 */
export async function createWelcomeAutomation(
  company: TestCompany,
  databaseConfigId: number,
  gatewayConfigId: number,
  messageConfig: Record<string, unknown> = { type: 'TEXT', message: 'Olá {PrimeiroNome}' },
): Promise<{ id: number }> {
  const response = await company.post(
    '/api/automations',
    welcomeAutomationBody(databaseConfigId, { gatewayConfigId }, { messageConfig }),
  );
  if (response.status !== 201) {
    throw new Error(`automation not created: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return response.body;
}

/**
 * The body of createWelcomeAutomation's automation; `gateway` names what it sends through
 * (`gatewayConfigId`, or a pool's `gatewayConfigIds`), `overrides` replace any field.
 */
export function welcomeAutomationBody(
  databaseConfigId: number,
  gateway: Record<string, unknown>,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name: 'Boas-vindas',
    scheduleType: 'DAILY',
    schedule: { timeOfDay: '09:00', timezone: 'America/Sao_Paulo' },
    databaseConfigId,
    ...gateway,
    filters: [],
    messageConfig: { type: 'TEXT', message: 'Olá {PrimeiroNome}' },
    dedupStrategy: 'ONCE',
    intervalMinSeconds: 0,
    intervalMaxSeconds: 0,
    ...overrides,
  };
}

/** Today's date in São Paulo, shifted by whole years (birthdays). */
export function todayInSaoPaulo(yearsAgo = 0): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(
    new Date(),
  );
  const [year, month, day] = parts.split('-');
  return `${Number(year) - yearsAgo}-${month}-${day}`;
}

export function otherDay(yearsAgo = 30): string {
  const today = todayInSaoPaulo(yearsAgo);
  const month = Number(today.slice(5, 7));
  return `${today.slice(0, 5)}${String((month % 12) + 1).padStart(2, '0')}-15`;
}

/** The automation's runs once the newest has COMPLETED. */
export async function runsOnceCompleted(
  company: TestCompany,
  automationId: number,
  timeoutMs: number,
): Promise<Array<Record<string, any>>> {
  return until(
    async () => (await company.get(`/api/automations/${automationId}/runs`)).body,
    (runs) => runs.length > 0 && runs[0].status === 'COMPLETED',
    timeoutMs,
    'a COMPLETED newest run',
  );
}

/** Starts a run at once (run-now) and waits until it is no longer RUNNING. */
export async function runNowAndWait(
  company: TestCompany,
  automationId: number,
  timeoutMs = 30_000,
): Promise<Record<string, any>> {
  const started = await company.post(`/api/automations/${automationId}/run-now`).expect(202);
  return runEnded(company, automationId, started.body.id, timeoutMs);
}

/** The run `runId` of the automation, once it is no longer RUNNING. */
export async function runEnded(
  company: TestCompany,
  automationId: number,
  runId: number,
  timeoutMs = 30_000,
): Promise<Record<string, any>> {
  return until(
    async () =>
      (await company.get(`/api/automations/${automationId}/runs`).expect(200)).body.find(
        (r: { id: number }) => r.id === runId,
      ),
    (run) => run !== undefined && run.status !== 'RUNNING',
    timeoutMs,
    'the end of the run',
  );
}
