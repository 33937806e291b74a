import type { OutboundAllowedHost } from '../../config/outbound-allow-hosts';
import type { AppConfig } from '../../config/app-config.service';
import {
  assertAddressesAllowed,
  OutboundTargetGuard,
  parseOutboundUrl,
} from './outbound-target.guard';
import { OutboundError, OutboundTargetRefusedError } from './outbound.errors';

function guard(
  outboundDenyPrivate: boolean,
  outboundAllowHosts: OutboundAllowedHost[] = [],
): OutboundTargetGuard {
  return new OutboundTargetGuard({
    outboundDenyPrivate,
    outboundAllowHosts,
  } as Partial<AppConfig> as AppConfig);
}

async function kindOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
    return 'allowed';
  } catch (error) {
    if (error instanceof OutboundError) {
      return error.kind;
    }
    throw error;
  }
}

describe('parseOutboundUrl', () => {
  it.each([
    ['ftp://gw.example.com/'],
    ['file:///etc/passwd'],
    ['javascript:alert(1)'],
    ['gw.example.com'],
    ['not a url'],
    ['https://user:secret@gw.example.com/'],
    ['https://user@gw.example.com/'],
  ])('refuses %s as an invalid URL', (raw) => {
    expect(() => parseOutboundUrl(raw)).toThrow(
      expect.objectContaining({ kind: 'invalid_url' }) as Error,
    );
  });

  it('accepts http and https URLs with ports and paths', () => {
    expect(parseOutboundUrl('http://gw.example.com:8080/evolution').port).toBe('8080');
    expect(parseOutboundUrl('https://gw.example.com').protocol).toBe('https:');
  });
});

describe('assertAddressesAllowed', () => {
  it('refuses the whole name when any one of its addresses is refused', () => {
    expect(() =>
      assertAddressesAllowed(
        'mixed.example.com',
        [
          { address: '8.8.8.8', family: 4 },
          { address: '169.254.169.254', family: 4 },
        ],
        false,
      ),
    ).toThrow(OutboundTargetRefusedError);
  });

  it('accepts a name whose addresses are all public', () => {
    expect(() =>
      assertAddressesAllowed(
        'gw.example.com',
        [
          { address: '8.8.8.8', family: 4 },
          { address: '2001:4860:4860::8888', family: 6 },
        ],
        true,
      ),
    ).not.toThrow();
  });
});

describe('OutboundTargetGuard', () => {
  it.each([
    ['http://169.254.169.254/latest/meta-data/'],
    ['http://[fd00:ec2::254]/'],
    ['http://100.100.100.200/'],
    ['http://169.254.1.1:8080/'],
    ['http://[fe80::1]/'],
    ['http://[::ffff:169.254.169.254]/'],
    ['http://0xa9fea9fe/'],
  ])('refuses %s even with private ranges open', async (url) => {
    expect(await kindOf(guard(false).check(url))).toBe('target_refused');
  });

  it.each([
    ['http://127.0.0.1:8080/'],
    ['http://localhost:8080/'],
    ['http://10.0.0.5/'],
    ['http://192.168.0.10/'],
    ['http://172.20.0.2/'],
    ['http://[::1]:8080/'],
    ['http://[::ffff:127.0.0.1]/'],
    ['http://2130706433/'],
    ['http://0.0.0.0/'],
  ])(
    'allows %s with private ranges open and refuses it with OUTBOUND_DENY_PRIVATE',
    async (url) => {
      expect(await kindOf(guard(false).check(url))).toBe('allowed');
      expect(await kindOf(guard(true).check(url))).toBe('target_refused');
    },
  );

  it('allows a public literal address with OUTBOUND_DENY_PRIVATE', async () => {
    const target = await guard(true).check('https://8.8.8.8/path');
    expect(target.addresses).toEqual([{ address: '8.8.8.8', family: 4 }]);
    expect(target.hostname).toBe('8.8.8.8');
  });

  it('strips the brackets of an IPv6 literal', async () => {
    const target = await guard(false).check('http://[2001:4860:4860::8888]:8080/');
    expect(target.hostname).toBe('2001:4860:4860::8888');
    expect(target.addresses).toEqual([{ address: '2001:4860:4860::8888', family: 6 }]);
  });

  it('reports a host that does not resolve as unresolvable', async () => {
    expect(await kindOf(guard(false).check('http://gateway.invalid/'))).toBe('unresolvable');
  });

  it('names the host, never the address its name resolved to', async () => {
    const error = await guard(true)
      .check('http://localhost:1/')
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OutboundTargetRefusedError);
    expect((error as Error).message).toContain('localhost');
    expect((error as Error).message).not.toMatch(/127\.0\.0\.1|::1/);
  });
});

describe('OutboundTargetGuard with OUTBOUND_ALLOW_HOSTS', () => {
  it('opens a listed name on any port, and only that name', async () => {
    const listing = guard(true, [{ host: 'localhost' }]);
    expect(await kindOf(listing.check('http://localhost:8080/'))).toBe('allowed');
    expect(await kindOf(listing.check('http://LOCALHOST:9/'))).toBe('allowed');
    expect(await kindOf(listing.check('http://127.0.0.1:8080/'))).toBe('target_refused');
  });

  it('opens a listed address on its port only, reached by literal or by name', async () => {
    const listing = guard(true, [{ host: '127.0.0.1', port: 8080 }]);
    expect(await kindOf(listing.check('http://127.0.0.1:8080/'))).toBe('allowed');
    expect(await kindOf(listing.check('http://127.0.0.1:8081/'))).toBe('target_refused');
    expect(await kindOf(listing.check('http://127.0.0.1/'))).toBe('target_refused');
    expect(await kindOf(listing.check('http://127.0.0.2:8080/'))).toBe('target_refused');
  });

  it('matches the default port of the scheme and IPv6 in any spelling', async () => {
    expect(await kindOf(guard(true, [{ host: '::1', port: 443 }]).check('https://[0::1]/'))).toBe(
      'allowed',
    );
    expect(
      await kindOf(guard(true, [{ host: '10.0.0.5', port: 80 }]).check('http://10.0.0.5')),
    ).toBe('allowed');
  });

  it('never opens link-local or metadata addresses', async () => {
    const listing = guard(true, [{ host: '169.254.169.254' }]);
    expect(await kindOf(listing.check('http://169.254.169.254/'))).toBe('target_refused');
  });
});
