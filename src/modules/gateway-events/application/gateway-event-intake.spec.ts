import { DomainError, UnauthorizedError } from '../../../common/errors/domain-error';
import { GatewayEventIntake } from './gateway-event-intake';
import type {
  GatewayEventsRepository,
  IncomingGatewayEvent,
} from './ports/gateway-events.repository';

/** A repository that records each statement and holds it until released. */
class HeldRepository {
  readonly statements: IncomingGatewayEvent[][] = [];
  private readonly releases: Array<() => void> = [];

  /** Configuration 99's events fail the statement; configuration 98 is gone: not written. */
  store(events: IncomingGatewayEvent[]): Promise<Set<number>> {
    this.statements.push(events);
    if (events.some((event) => event.gatewayConfigId === 99)) {
      return Promise.reject(new Error('could not write'));
    }
    const live = new Set(events.map((event) => event.gatewayConfigId).filter((id) => id !== 98));
    return new Promise((resolve) => this.releases.push(() => resolve(live)));
  }

  releaseAll(): void {
    this.releases.splice(0).forEach((release) => release());
  }

  /** Announcements sent, and the ones still waiting for their answer. */
  announced = 0;
  private readonly announcing: Array<() => void> = [];

  announce(): Promise<void> {
    this.announced += 1;
    return new Promise((resolve) => this.announcing.push(resolve));
  }

  answerAnnouncements(): void {
    this.announcing.splice(0).forEach((answer) => answer());
  }
}

const connection = (
  gatewayConfigId: number,
  second: number,
  state: string,
): IncomingGatewayEvent => ({
  gatewayConfigId,
  companyId: 1,
  event: 'connection.update',
  payload: { data: { state }, at: new Date(Date.UTC(2026, 10, 24, 12, 0, second)).toISOString() },
});
const receipt = (gatewayConfigId: number, keyId: string): IncomingGatewayEvent => ({
  gatewayConfigId,
  companyId: 1,
  event: 'messages.update',
  payload: { data: { keyId, status: 'READ' } },
});

async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

describe('GatewayEventIntake', () => {
  let repository: HeldRepository;
  let intake: GatewayEventIntake;

  beforeEach(async () => {
    repository = new HeldRepository();
    intake = new GatewayEventIntake(repository as unknown as GatewayEventsRepository);
    // Two writes in flight: what arrives next waits and is written as one batch.
    const first = [1, 2].map((n) => intake.store(receipt(1, `K${n}`)));
    await settle();
    expect(repository.statements).toHaveLength(2);
    repository.releaseAll();
    await Promise.all(first);
    repository.statements.length = 0;
    [5, 6].forEach((n) => void intake.store(receipt(1, `H${n}`)));
    await settle();
  });

  afterEach(() => {
    repository.releaseAll();
    repository.answerAnnouncements();
  });

  it('announces stored batches apart, one announcement at a time, one more for those stored meanwhile after a pause', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      // beforeEach: two batches stored, the first announced and the other waiting for it.
      expect(repository.announced).toBe(1);
      repository.releaseAll();
      await settle();
      repository.answerAnnouncements();
      await settle();
      expect(repository.announced).toBe(1);
      jest.advanceTimersByTime(50);
      expect(repository.announced).toBe(2);
      repository.answerAnnouncements();
      await settle();
      jest.advanceTimersByTime(50);
      expect(repository.announced).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it("writes only the latest of a configuration's connection events in a batch and its last open or close, and answers them all", async () => {
    const answered = [
      intake.store(connection(1, 3, 'connecting')),
      intake.store(receipt(1, 'K9')),
      intake.store(connection(1, 5, 'connecting')),
      intake.store(connection(2, 1, 'close')),
      intake.store(connection(1, 4, 'close')),
    ];
    repository.statements.length = 0;
    repository.releaseAll();
    await settle();
    expect(repository.statements).toHaveLength(1);
    expect(repository.statements[0]).toEqual([
      receipt(1, 'K9'),
      connection(1, 5, 'connecting'),
      connection(2, 1, 'close'),
      connection(1, 4, 'close'),
    ]);
    repository.releaseAll();
    await expect(Promise.all(answered)).resolves.toHaveLength(5);
  });

  it('writes a failed batch again event by event: only the event that cannot be stored fails', async () => {
    const good = intake.store(receipt(1, 'A1'));
    const bad = intake.store(receipt(99, 'B1')).catch((error: Error) => error.message);
    const other = intake.store(receipt(2, 'A2'));
    repository.statements.length = 0;
    for (let i = 0; i < 10; i += 1) {
      repository.releaseAll();
      await settle();
    }
    await expect(good).resolves.toBeUndefined();
    await expect(bad).resolves.toBe('could not write');
    await expect(other).resolves.toBeUndefined();
    expect(repository.statements.map((batch) => batch.length)).toEqual([3, 1, 1, 1]);
  });

  it('answers 401 to the events of a configuration gone since the gate, in the same statement as the others', async () => {
    const good = intake.store(receipt(1, 'A1'));
    const gone = intake.store(receipt(98, 'B1')).catch((error: unknown) => error);
    repository.statements.length = 0;
    repository.releaseAll();
    await settle();
    repository.releaseAll();
    await expect(good).resolves.toBeUndefined();
    await expect(gone).resolves.toBeInstanceOf(UnauthorizedError);
    expect(repository.statements.map((batch) => batch.length)).toEqual([2]);
  });

  it('refuses with 503 at once while its queue is full, and takes events again once it drains', async () => {
    // Two writes in flight (beforeEach), and 5,000 events waiting behind them.
    const waiting = Array.from({ length: 5_000 }, (_v, n) => intake.store(receipt(1, `Q${n}`)));
    const refused = await Promise.race([
      intake.store(receipt(1, 'over')).catch((error: unknown) => error),
      settle().then(() => 'still waiting'),
    ]);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).kind).toBe('unavailable');
    for (let i = 0; i < 20; i += 1) {
      repository.releaseAll();
      await settle();
    }
    await expect(Promise.all(waiting)).resolves.toHaveLength(waiting.length);
    const again = intake.store(receipt(1, 'again'));
    await settle();
    repository.releaseAll();
    await expect(again).resolves.toBeUndefined();
  });
});
