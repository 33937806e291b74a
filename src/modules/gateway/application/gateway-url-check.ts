import { ValidationFailedError } from '../../../common/errors/domain-error';
import { OutboundTargetGuard } from '../../../common/outbound/outbound-target.guard';
import { OutboundError } from '../../../common/outbound/outbound.errors';

const URL_REFUSALS: Partial<Record<OutboundError['kind'], string>> = {
  invalid_url: 'deve ser uma URL http:// ou https:// válida, sem usuário e senha',
  target_refused: 'aponta para um endereço de rede não permitido',
  unresolvable: 'tem um host que não foi encontrado (DNS)',
};

/**
 * The same check every request to a gateway passes (Evolution API or Meta's Graph API), run
 * early for a clear 400 naming `url`.
 */
export async function assertCallableUrl(targets: OutboundTargetGuard, url: string): Promise<void> {
  try {
    await targets.check(url.trim());
  } catch (error) {
    const refusal = error instanceof OutboundError ? URL_REFUSALS[error.kind] : undefined;
    if (refusal) {
      throw new ValidationFailedError([['url', refusal]]);
    }
    throw error;
  }
}
