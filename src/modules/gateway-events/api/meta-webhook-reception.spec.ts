import { createHmac } from 'node:crypto';
import { signatureMatches } from './meta-webhook-reception';

const SECRET = 'segredo-do-app';
const RAW = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');
const SIGNED = `sha256=${createHmac('sha256', SECRET).update(RAW).digest('hex')}`;

describe('signatureMatches', () => {
  it('takes the HMAC-SHA256 of the raw bytes with the app secret, in either case of hex', () => {
    expect(signatureMatches(SECRET, RAW, SIGNED)).toBe(true);
    expect(signatureMatches(SECRET, RAW, SIGNED.toUpperCase().replace('SHA256=', 'sha256='))).toBe(
      true,
    );
  });

  it('refuses another body, another secret, a malformed or missing header, and an unopened secret', () => {
    const spaced = Buffer.from('{"object": "whatsapp_business_account","entry":[]}');
    expect(signatureMatches(SECRET, spaced, SIGNED)).toBe(false);
    expect(signatureMatches('outro', RAW, SIGNED)).toBe(false);
    for (const header of [
      undefined,
      '',
      'sha256=',
      SIGNED.slice(0, -2),
      `sha1=${'0'.repeat(40)}`,
      [SIGNED],
    ]) {
      expect(signatureMatches(SECRET, RAW, header)).toBe(false);
    }
    expect(signatureMatches(null, RAW, SIGNED)).toBe(false);
  });
});
