import { Logger } from '@nestjs/common';
import { GatewayError } from '../domain/messaging-gateway';
import { loggedCallFailure } from './gateway-call-failure';

describe('loggedCallFailure', () => {
  const logger = new Logger('spec');

  afterEach(() => jest.restoreAllMocks());

  it('logs where a gateway call went and how it failed, and answers the error', () => {
    const debug = jest.spyOn(logger, 'debug').mockImplementation(() => undefined);
    const error = new GatewayError('transient', 'falhou', 503);

    const answered = loggedCallFailure(logger, 'Gateway call failed', { instance: 'i1' }, error);

    expect(answered).toBe(error);
    expect(debug).toHaveBeenCalledWith(
      { instance: 'i1', kind: 'transient', httpStatus: 503 },
      'Gateway call failed',
    );
  });

  it('answers any other error as it is, without logging it', () => {
    const debug = jest.spyOn(logger, 'debug').mockImplementation(() => undefined);
    const error = new TypeError('bug');

    expect(loggedCallFailure(logger, 'Gateway call failed', { instance: 'i1' }, error)).toBe(error);
    expect(debug).not.toHaveBeenCalled();
  });
});
