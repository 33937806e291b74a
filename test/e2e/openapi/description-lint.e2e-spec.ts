import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../../../src/common/http/openapi-document';
import { useE2eFixture } from '../../support/e2e-fixture';

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: unknown[] }[];
}

/** `redocly lint` with its recommended rules, on a file; its JSON report. */
function redoclyLint(file: string): LintReport {
  const cli = require.resolve('@redocly/cli/bin/cli.js');
  const run = spawnSync(
    process.execPath,
    [cli, 'lint', file, '--extends=recommended', '--format=json'],
    {
      encoding: 'utf8',
      // No telemetry or update check: the linter runs offline, as CI does.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  if (run.error || !run.stdout.trim().startsWith('{')) {
    throw new Error(`redocly lint did not run: ${String(run.error ?? run.stderr)}`);
  }
  return JSON.parse(run.stdout) as LintReport;
}

describe('the served OpenAPI description', () => {
  const { t } = useE2eFixture();
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes redocly lint with the recommended rules: no error, no warning', async () => {
    const served = await t.http.get('/api/docs-json').expect(200);
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(served.body));

    const report = redoclyLint(file);

    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('is the document the response validation of the e2e harness checks against', async () => {
    const served = await t.http.get('/api/docs-json').expect(200);

    expect(served.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(t.app))));
  });

  it('describes the routes it serves, public ones with an empty security requirement', async () => {
    const document = (await t.http.get('/api/docs-json').expect(200)).body as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };

    expect(document.paths['/api/auth/login'].post.security).toEqual([]);
    expect(document.paths['/actuator/health'].get.security).toEqual([]);
    expect(document.paths['/api/auth/register'].post.security).toEqual([{ admin: [] }]);
    expect(document.paths['/api/campaigns'].post.security).toEqual([{ accessToken: [] }]);
  });
});
