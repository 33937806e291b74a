import { literalStatusWrites, sqlTextsOf, statusLikeColumns } from './status-writes';

const COLUMNS = ['instance_state', 'state', 'status'];

describe('literalStatusWrites', () => {
  it.each([
    ["UPDATE t SET status = 'SENT' WHERE id = $1", ["status = 'SENT'"]],
    ["UPDATE t SET attempts = 0, state = 'DROP' WHERE id = $1", ["state = 'DROP'"]],
    ["UPDATE t SET status = 'FAILED'::varchar WHERE id = $1", ["status = 'FAILED'::varchar"]],
    [
      "UPDATE t SET state = CASE WHEN $3 AND state = 'PENDING' THEN 'FAILED' ELSE state END",
      ["state = CASE WHEN $3 AND state = 'PENDING' THEN 'FAILED' ELSE state END"],
    ],
    [
      "INSERT INTO t (a, status) VALUES ($1, 'ACTIVE'), ($2, 'DONE') RETURNING id",
      ["status = 'ACTIVE'", "status = 'DONE'"],
    ],
    [
      "INSERT INTO t (name, state) SELECT r.name, 'PENDING' FROM unnest($1::text[]) AS r(name)",
      ["state = 'PENDING'"],
    ],
    [
      "INSERT INTO t (k) VALUES ($1) ON CONFLICT (k) DO UPDATE SET status = 'DONE'",
      ["status = 'DONE'"],
    ],
    [
      "UPDATE t SET x = (SELECT 1 FROM u WHERE u.a = 'B'), status = 'DONE' WHERE id = $1",
      ["status = 'DONE'"],
    ],
  ])('finds the literal write in %s', (sql, writes) => {
    expect(literalStatusWrites(sql, COLUMNS)).toEqual(writes);
  });

  it.each([
    "UPDATE t SET status = $ts WHERE status = 'PENDING' AND id = $1",
    "UPDATE t SET instance_state = CASE WHEN instance_state = 'not_paired' THEN instance_state ELSE $2 END",
    "UPDATE t SET waiting_reason = 'LONG_PAUSE', next_send_at = now() WHERE status = 'ACTIVE'",
    "INSERT INTO t (status, trigger) VALUES ($1, 'SCHEDULE')",
    "SELECT count(*) FILTER (WHERE status = 'SENT') FROM t",
    "SET maintenance_work_mem = '256MB'",
  ])('lets %s through: it writes no status literal', (sql) => {
    expect(literalStatusWrites(sql, COLUMNS)).toEqual([]);
  });
});

describe('sqlTextsOf', () => {
  it('reads string and template literals, a substitution standing for a computed value', () => {
    const source = "const a = 'x';\nconst b = `SET status = ${MOVE.to} WHERE id = $1`;";
    expect(sqlTextsOf('a.ts', source)).toEqual(['x', 'SET status = $ts WHERE id = $1']);
  });

  it('keeps each substitution as written when asked to', () => {
    const source = 'const b = `SET status = ${MOVE.deliver.to}, ${STAMP} WHERE id = $1`;';
    expect(sqlTextsOf('a.ts', source, 'as written')).toEqual([
      'SET status = ${MOVE.deliver.to}, ${STAMP} WHERE id = $1',
    ]);
  });
});

describe('statusLikeColumns', () => {
  it('names the status, state, *_status and *state columns a migration defines', () => {
    const migration = `CREATE TABLE t (status varchar(10) NOT NULL, last_status_code integer,
      response_status integer, state varchar(10)); ALTER TABLE g ADD COLUMN instance_state varchar(20),
      ADD COLUMN instance_state_at timestamptz`;
    expect(statusLikeColumns([migration])).toEqual([
      'instance_state',
      'response_status',
      'state',
      'status',
    ]);
  });
});
