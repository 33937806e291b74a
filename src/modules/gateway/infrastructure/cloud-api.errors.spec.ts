import type { GatewayErrorKind } from '../domain/messaging-gateway';
import { cloudApiErrorFromResponse, graphErrorOf } from './cloud-api.errors';

/** Meta's error envelope, as the Graph API answers it. */
function meta(code: number, extra: Record<string, unknown> = {}): unknown {
  return {
    error: {
      message: `(#${code}) Meta says no`,
      type: 'OAuthException',
      code,
      fbtrace_id: 'Axyz',
      ...extra,
    },
  };
}

describe('cloudApiErrorFromResponse', () => {
  it.each<[string, number, number, GatewayErrorKind]>([
    ['the number over its throughput', 400, 130429, 'throttled'],
    ['the pair rate with this person', 400, 131056, 'throttled'],
    ["the app's call rate", 400, 4, 'throttled'],
    ["the business account's rate", 400, 80007, 'throttled'],
    ['the spam rate', 400, 131048, 'account_blocked'],
    ['a missing permission', 403, 200, 'account_blocked'],
    ['another permission', 400, 294, 'account_blocked'],
    ['a possible server error', 500, 1, 'uncertain'],
    ['the account in maintenance', 400, 131057, 'throttled'],
    ['an undeliverable message', 400, 131026, 'undeliverable'],
    ['a person in an experiment', 400, 130472, 'undeliverable'],
    ['a person who stopped marketing', 400, 131050, 'undeliverable'],
    ['more than 24 h since the person wrote', 400, 131047, 'reengagement_required'],
    ["the person's marketing limit", 400, 131049, 'marketing_limit'],
    ['an expired token', 401, 190, 'account_blocked'],
    ['a payment problem', 400, 131042, 'account_blocked'],
    ['a locked account', 400, 131031, 'account_blocked'],
    ['a policy block', 400, 368, 'account_blocked'],
    ['a number not registered', 400, 133010, 'account_blocked'],
    ['a template that does not exist', 404, 132001, 'account_blocked'],
    ['a paused template', 400, 132015, 'account_blocked'],
    ['a disabled template', 400, 132016, 'account_blocked'],
    ['a missing permission', 403, 10, 'account_blocked'],
    ['an invalid parameter', 400, 100, 'rejected'],
    ['a missing required parameter', 400, 131008, 'rejected'],
    ['an invalid parameter value', 400, 131009, 'rejected'],
    ["a template's parameter count", 400, 132000, 'rejected'],
    ["a template's parameter format", 400, 132012, 'rejected'],
    ['an unsupported message type', 400, 131051, 'rejected'],
    ['a media download error', 400, 131052, 'media_unreachable'],
    ['a media upload error', 400, 131053, 'media_unreachable'],
    ["Meta's service unavailable", 503, 131016, 'transient'],
    ["Meta's temporary downtime", 500, 2, 'transient'],
    ["Meta's 'something went wrong'", 500, 131000, 'uncertain'],
  ])('classifies %s (%i, code %i) as %s', (_label, status, code, kind) => {
    expect(cloudApiErrorFromResponse(status, meta(code)).kind).toBe(kind);
  });

  it.each<[string, number, unknown, GatewayErrorKind]>([
    ['an unknown object (100/33)', 400, meta(100, { error_subcode: 33 }), 'unknown_instance'],
    ['an unknown code with 401', 401, meta(99999), 'bad_credentials'],
    ['an unknown code with 403', 403, meta(99999), 'bad_credentials'],
    ['a 401 without Meta body', 401, 'Unauthorized', 'bad_credentials'],
    ['a 404 without Meta body', 404, null, 'unknown_instance'],
    ['a 429 without Meta body', 429, null, 'throttled'],
    ["another 4xx code of Meta's", 400, meta(99999), 'rejected'],
    ["a 5xx of Meta's without a known code", 500, meta(99999), 'uncertain'],
    ["a proxy's 502", 502, '<html>Bad Gateway</html>', 'uncertain'],
    ["a 400 that is not Meta's", 400, { message: 'nope' }, 'uncertain'],
  ])('classifies %s as %s', (_label, status, body, kind) => {
    expect(cloudApiErrorFromResponse(status, body).kind).toBe(kind);
  });

  it("tells Meta's details (over its message), cut to 200 characters, with the code", () => {
    const details = `Message failed to send because ${'x'.repeat(300)}`;
    const error = cloudApiErrorFromResponse(400, meta(131026, { error_data: { details } }));
    expect(error.message).toBe(`${details.slice(0, 200)}… (código 131026)`);
    expect(error.httpStatus).toBe(400);
  });

  it("falls back to Meta's message when there are no details", () => {
    expect(cloudApiErrorFromResponse(400, meta(131047)).message).toBe(
      '(#131047) Meta says no (código 131047)',
    );
  });

  it("never shows what a body that is not Meta's says", () => {
    const error = cloudApiErrorFromResponse(500, { error: 'internal secret host db-7' });
    expect(error.message).not.toContain('db-7');
    expect(graphErrorOf({ error: { code: '131026' } })).toBeNull();
  });
});
