/**
 * The fake Graph API (test/support/fake-graph-api) in a process of its own, as Meta is a
 * service of its own: its HTTP handling then neither counts in the CPU of the processes under
 * test nor waits for the harness's event loop, so the arrival times it stamps are its own. It
 * keeps only when each message arrived, per phone number id (recordArrivalsOnly). The parent
 * sends {type: 'add-number' | 'add-template' | 'take-arrivals'} over IPC.
 */
import {
  FakeGraphApi,
  type FakeNumber,
  type MetaTemplate,
} from '../../test/support/fake-graph-api';
import { forkFake, serveForked } from './forked-fake';
import { processCpuMs } from './worker-process';

export type FakeNumberInput = Pick<
  FakeNumber,
  'phoneNumberId' | 'businessAccountId' | 'accessToken'
> &
  Partial<FakeNumber>;

type Request =
  | { type: 'add-number'; number: FakeNumberInput }
  | { type: 'add-template'; businessAccountId: string; template: MetaTemplate }
  | { type: 'take-arrivals' };

export interface FakeGraphApiProcess {
  url: string;
  addNumber(number: FakeNumberInput): Promise<void>;
  addTemplate(businessAccountId: string, template: MetaTemplate): Promise<void>;
  /** Arrival times (epoch ms) per phone number id since the last call, oldest first. */
  takeArrivals(): Promise<Record<string, number[]>>;
  /** utime + stime of the fake's process so far, in ms. */
  cpuMs(): number;
  stop(): Promise<void>;
}

export async function startFakeGraphApiProcess(): Promise<FakeGraphApiProcess> {
  // Structured clone: a few hundred thousand arrival times cross without a JSON round.
  const { url, child, ask, stop } = await forkFake<Request>(__filename, 'the fake Graph API', true);
  return {
    url,
    addNumber: (number) => ask({ type: 'add-number', number }),
    addTemplate: (businessAccountId, template) =>
      ask({ type: 'add-template', businessAccountId, template }),
    takeArrivals: () => ask({ type: 'take-arrivals' }),
    cpuMs: () => processCpuMs(child.pid as number),
    stop,
  };
}

function answer(fake: FakeGraphApi, request: Request): unknown {
  switch (request.type) {
    case 'add-number':
      return fake.addNumber(request.number);
    case 'add-template':
      return fake.addTemplate(request.businessAccountId, request.template);
    case 'take-arrivals':
      return fake.takeArrivals();
  }
}

async function serve(): Promise<void> {
  const fake = new FakeGraphApi();
  fake.recordArrivalsOnly();
  await fake.start();
  serveForked<Request>(fake, (request) => answer(fake, request));
}

if (require.main === module) {
  void serve();
}
