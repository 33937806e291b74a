/**
 * A lifecycle as data: for each action, the status it moves each allowed status to. Entities
 * ask it before they change (`next`, `assertNext`); set-based SQL asks it which statuses it
 * may guard on and which it writes (`sql`), so a statement can only make a move the table
 * allows. docs/ARCHITECTURE.md ("Lifecycles") lists every table of the service.
 */
export class TransitionTable<S extends string, A extends string> {
  constructor(
    /** What the lifecycle is called in errors, e.g. 'IMPORT_JOB'. */
    readonly name: string,
    private readonly moves: Record<A, Partial<Record<S, S>>>,
  ) {}

  next(from: S, action: A): S | undefined {
    return this.moves[action][from];
  }

  /** The status `action` leads to from `from`; a move the table does not allow is a bug. */
  assertNext(from: S, action: A): S {
    const to = this.next(from, action);
    if (to === undefined) {
      throw new IllegalTransitionError(this.name, from, action);
    }
    return to;
  }

  /** The statuses `action` may start from. */
  statusesAllowing(action: A): S[] {
    return Object.keys(this.moves[action]) as S[];
  }

  /** The one status `action` leads to; an action with several targets has no single one. */
  target(action: A): S {
    const targets = [...new Set(Object.values(this.moves[action]) as S[])];
    if (targets.length !== 1) {
      throw new Error(`${this.name}.${action} has ${targets.length} target statuses`);
    }
    return targets[0];
  }

  /** The statuses a move leads to and none leaves: the lifecycle is over there. */
  finalStatuses(): S[] {
    const moves: Array<Partial<Record<S, S>>> = Object.values(this.moves);
    const left = new Set(moves.flatMap((move) => Object.keys(move)));
    const reached = new Set(moves.flatMap((move) => Object.values(move) as S[]));
    return [...reached].filter((status) => !left.has(status));
  }

  /** finalStatuses() as a SQL list of literals: `WHERE status IN (${table.finalSql()})`. */
  finalSql(): string {
    return this.finalStatuses().map(quoted).join(', ');
  }

  /**
   * The move as SQL literals, for statements whose text must stay constant (prepared
   * statements, partial indexes): `SET status = ${m.to} WHERE status IN (${m.from})`. The
   * values come from this table, never from input, and are single-quoted identifiers.
   */
  sql(action: A): { from: string; to: string } {
    return {
      from: this.statusesAllowing(action).map(quoted).join(', '),
      to: quoted(this.target(action)),
    };
  }
}

/** A status as a SQL literal, for statuses that are written or read as constants. */
export function statusLiteral(status: string): string {
  return quoted(status);
}

function quoted(status: string): string {
  if (!/^[A-Z_]+$/.test(status)) {
    throw new Error(`Not a status: ${status}`);
  }
  return `'${status}'`;
}

/** A move the table does not allow: the code asked for it, so it is a bug (500), never input. */
export class IllegalTransitionError extends Error {
  constructor(lifecycle: string, from: string, action: string) {
    super(`${lifecycle}: no '${action}' from ${from}`);
    this.name = 'IllegalTransitionError';
  }
}
