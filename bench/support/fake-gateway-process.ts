/**
 * The fake Evolution API in a process of its own, as the real gateway is a service of its
 * own: its HTTP handling then does not count in the event loop and CPU of the service under
 * test. The parent sends {type: 'add-instance'} and {type: 'sent-times'} over IPC.
 */
import { FakeEvolutionApi } from '../../test/support/fake-evolution-api';
import { forkFake, serveForked } from './forked-fake';

type Request = { type: 'add-instance'; name: string; apiKey: string } | { type: 'sent-times' };

export interface FakeGatewayProcess {
  url: string;
  addInstance(name: string, apiKey: string): Promise<void>;
  /** When each message was received, epoch ms, in order. */
  sentTimes(): Promise<number[]>;
  stop(): Promise<void>;
}

export async function startFakeGatewayProcess(): Promise<FakeGatewayProcess> {
  const { url, ask, stop } = await forkFake<Request>(__filename, 'the fake gateway');
  return {
    url,
    addInstance: (name, apiKey) => ask({ type: 'add-instance', name, apiKey }),
    sentTimes: () => ask({ type: 'sent-times' }),
    stop,
  };
}

async function serve(): Promise<void> {
  const fake = new FakeEvolutionApi();
  await fake.start();
  serveForked<Request>(fake, (request) => {
    if (request.type === 'add-instance') {
      fake.addInstance(request.name, { apiKey: request.apiKey, state: 'open' });
      return undefined;
    }
    return fake.sent.map((message) => message.at.getTime());
  });
}

if (require.main === module) {
  void serve();
}
