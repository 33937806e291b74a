import type { AppConfig } from '../../../config/app-config.service';
import type { AccessTokensRepository, TokenCompanyRow } from './ports/access-tokens.repository';
import type { CompaniesRepository } from '../infrastructure/companies.repository';
import { SessionCache } from './session-cache.service';

const ROW: TokenCompanyRow = {
  company_id: 7,
  name: 'Loja da Maria',
  email: 'contato@lojadamaria.com.br',
  is_active: true,
  registration_type: 'admin_password',
  rate_limit_per_minute: null,
  rate_limit_per_hour: null,
  subscription_status: null,
};

describe('SessionCache', () => {
  it('does not cache a lookup that was in flight when the token was forgotten', async () => {
    let lookups = 0;
    let release: (row: TokenCompanyRow | null) => void = () => undefined;
    const tokens = {
      findLiveTokenCompany: () => {
        lookups += 1;
        return lookups === 1
          ? new Promise<TokenCompanyRow | null>((resolve) => (release = resolve))
          : Promise.resolve(null);
      },
    } as unknown as AccessTokensRepository;
    const config = { rateLimitPerMinute: 60, rateLimitPerHour: 1000 } as AppConfig;
    const cache = new SessionCache(tokens, {} as CompaniesRepository, config);

    const inFlight = cache.findByToken('token-1');
    const session = await Promise.resolve().then(() => {
      cache.forgetCompany(ROW.company_id);
      release(ROW);
      return inFlight;
    });

    expect(session?.companyId).toBe(7);
    expect(await cache.findByToken('token-1')).toBeNull();
    expect(lookups).toBe(2);
  });
});
