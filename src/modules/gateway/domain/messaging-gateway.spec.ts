import { GatewayError, GatewayErrorKind, gatewayOutcomeOf } from './messaging-gateway';

describe('gatewayOutcomeOf', () => {
  it('classes each failure by what it proves (docs/ARCHITECTURE.md, "Gateway outcomes")', () => {
    const expected: Record<GatewayErrorKind, string> = {
      transient: 'not_sent',
      disconnected: 'disconnected',
      refused_number: 'refused',
      rejected: 'refused',
      bad_credentials: 'instance_refused',
      unknown_instance: 'instance_refused',
      target_refused: 'target_refused',
      uncertain: 'uncertain',
      media_unreachable: 'not_sent',
      throttled: 'not_sent',
      undeliverable: 'refused',
      reengagement_required: 'refused',
      marketing_limit: 'refused',
      account_blocked: 'instance_refused',
    };
    for (const [kind, outcome] of Object.entries(expected)) {
      expect([kind, gatewayOutcomeOf(new GatewayError(kind as GatewayErrorKind, 'x'))]).toEqual([
        kind,
        outcome,
      ]);
    }
  });

  it('classes anything but a GatewayError as error', () => {
    expect(gatewayOutcomeOf(new Error('boom'))).toBe('error');
    expect(gatewayOutcomeOf('boom')).toBe('error');
  });
});
