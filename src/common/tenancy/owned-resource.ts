import type { ObjectLiteral, Repository } from 'typeorm';
import { ForbiddenError, NotFoundError } from '../errors/domain-error';

export interface TenantOwned extends ObjectLiteral {
  id: number | string;
  companyId: number;
}

/** How a kind of resource is named in errors, e.g. `{ code: 'CAMPAIGN', label: 'Campanha' }`. */
export interface ResourceKind {
  code: string;
  /** Portuguese noun with its article-agreeing ending, e.g. 'Campanha não encontrada'. */
  notFoundMessage: string;
}

export class ResourceNotFoundError extends NotFoundError {
  constructor(kind: ResourceKind) {
    super(`${kind.code}.NOT_FOUND`, kind.notFoundMessage);
  }
}

export class ForeignResourceError extends ForbiddenError {
  constructor(kind: ResourceKind) {
    super(`${kind.code}.FORBIDDEN`, 'Este recurso pertence a outra empresa');
  }
}

/**
 * The one ownership rule: none → 404, another company's → 403. Every `{id}` operation of an
 * application service goes through here first (via TenantRepository.findOwnedOrFail).
 */
export function assertOwned<T extends TenantOwned>(
  resource: T | null | undefined,
  companyId: number,
  kind: ResourceKind,
): T {
  if (!resource) {
    throw new ResourceNotFoundError(kind);
  }
  if (resource.companyId !== companyId) {
    throw new ForeignResourceError(kind);
  }
  return resource;
}

/** Base of repositories of tenant-owned aggregates: companyId comes first, always. */
export abstract class TenantRepository<T extends TenantOwned> {
  protected constructor(
    protected readonly repository: Repository<T>,
    protected readonly kind: ResourceKind,
  ) {}

  /** The company's resource with that id: 404 when there is none, 403 when it is another's. */
  async findOwnedOrFail(companyId: number, id: number | string): Promise<T> {
    if (!isValidId(id)) {
      throw new ResourceNotFoundError(this.kind);
    }
    const resource = await this.repository.findOne({ where: { id } as never });
    return assertOwned(resource, companyId, this.kind);
  }
}

function isValidId(id: number | string): boolean {
  const n = Number(id);
  return Number.isSafeInteger(n) && n > 0 && n <= 2_147_483_647;
}
