import type { FakeNumber, MetaTemplate } from './accounts';
import { registerAccountRoutes } from './accounts';
import type { FakeSentMessage, MessagesState, SendScriptStep } from './messages';
import { registerMessageRoutes } from './messages';
import { FakeGraphApiServer, GraphAnswer, GraphRequest, graphError } from './server';

export type { FakeNumber, MetaTemplate, FakeSentMessage, GraphAnswer, GraphRequest };
export { graphError };

/**
 * Meta's Graph API (WhatsApp Cloud API) as the service uses it, over real HTTP on 127.0.0.1:
 * numbers and their business accounts' templates (accounts.ts), sends (messages.ts), and the
 * webhooks sent back to the service (webhooks.ts, which wraps this: `webhooks` is its place).
 * A SideServer of the e2e fixture.
 */
export class FakeGraphApi {
  readonly server = new FakeGraphApiServer();
  private readonly state: MessagesState = {
    numbers: new Map(),
    templates: new Map(),
    sent: [],
    arrivals: null,
    sendScript: [],
    hung: [],
  };
  private pageSize = 100;
  /** Set by webhooks.ts (another concern): what signs and posts webhooks to the service. */
  webhooks: unknown = null;

  constructor() {
    registerAccountRoutes(this.server, this.state, () => this.pageSize);
    registerMessageRoutes(this.server, this.state);
  }

  get url(): string {
    return this.server.url;
  }

  /** Every request the fake received, oldest first. */
  get requests(): GraphRequest[] {
    return this.server.requests;
  }

  /** The messages the fake accepted, oldest first. */
  get sent(): FakeSentMessage[] {
    return this.state.sent;
  }

  /**
   * From now on, an accepted message is kept only as when it arrived, per number, and requests
   * are not logged: a benchmark's hundreds of thousands of sends without their bodies.
   */
  recordArrivalsOnly(): void {
    this.state.arrivals ??= new Map();
    this.server.keepRequests = false;
  }

  /**
   * Since recordArrivalsOnly or the last call: when each accepted message arrived (epoch ms,
   * sub-ms precision), per phone number id, oldest first; they are forgotten here.
   */
  takeArrivals(): Record<string, number[]> {
    const arrivals = this.state.arrivals;
    const taken = Object.fromEntries(arrivals ?? []);
    arrivals?.clear();
    return taken;
  }

  number(phoneNumberId: string): FakeNumber | undefined {
    return this.state.numbers.get(phoneNumberId);
  }

  start(): Promise<void> {
    return this.server.start();
  }

  async stop(): Promise<void> {
    this.releaseHung();
    await this.server.stop();
  }

  /** A number Meta knows; what it says of it defaults to a healthy one (GREEN, TIER_1K). */
  addNumber(
    number: Pick<FakeNumber, 'phoneNumberId' | 'businessAccountId' | 'accessToken'> &
      Partial<FakeNumber>,
  ): void {
    this.state.numbers.set(number.phoneNumberId, {
      displayPhoneNumber: `+${number.phoneNumberId.slice(-11)}`,
      verifiedName: 'Empresa de teste',
      qualityRating: 'GREEN',
      tier: 'TIER_1K',
      ...number,
    });
  }

  /** Changes what Meta says of a number (quality, tier, …). */
  updateNumber(phoneNumberId: string, changes: Partial<FakeNumber>): void {
    const number = this.state.numbers.get(phoneNumberId);
    if (number) {
      Object.assign(number, changes);
    }
  }

  addTemplate(businessAccountId: string, template: MetaTemplate): void {
    const list = this.state.templates.get(businessAccountId) ?? [];
    const id = template.id ?? String(1_000_000_000 + list.length + 1);
    list.push({ ...template, id });
    this.state.templates.set(businessAccountId, list);
  }

  /** Changes a template (its status, …) as Meta would. */
  updateTemplate(businessAccountId: string, name: string, changes: Partial<MetaTemplate>): void {
    const found = (this.state.templates.get(businessAccountId) ?? []).filter(
      (template) => template.name === name,
    );
    found.forEach((template) => Object.assign(template, changes));
  }

  /** At most this many templates a page (Meta's paging, followed by the client). */
  setTemplatesPageSize(size: number): void {
    this.pageSize = size;
  }

  /** The next send is answered with this instead (e.g. graphError(400, 131026, …)). */
  failNextSend(answer: GraphAnswer): void {
    this.state.sendScript.push({ kind: 'answer', answer });
  }

  /** The next send with Meta's error `code` in its envelope. */
  failNextSendWithCode(code: number, status = 400, message = `(#${code}) Meta error`): void {
    this.failNextSend(graphError(status, code, message, { details: message }));
  }

  /** The next send waits this long before Meta's answer. */
  delayNextSend(ms: number): void {
    this.state.sendScript.push({ kind: 'delay', ms });
  }

  /** The next send is read whole and never answered (until stop or `releaseHung`). */
  hangNextSend(): void {
    this.state.sendScript.push({ kind: 'hang' });
  }

  /** Ends the hung requests (with a 500 nobody waits for any more). */
  releaseHung(): void {
    this.state.hung.splice(0).forEach((release) => release());
  }

  /** Forgets numbers, templates, sends, scripts and requests, and keeps whole sends again. */
  reset(): void {
    this.releaseHung();
    this.state.numbers.clear();
    this.state.templates.clear();
    this.state.sent.length = 0;
    this.state.arrivals = null;
    this.state.sendScript.length = 0;
    this.server.requests.length = 0;
    this.server.keepRequests = true;
    this.pageSize = 100;
  }

  /** The steps not yet used (a test that injected errors expects none left). */
  get pendingScript(): readonly SendScriptStep[] {
    return this.state.sendScript;
  }
}
