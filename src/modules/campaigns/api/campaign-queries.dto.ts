import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min, ValidateBy } from 'class-validator';
import { ToInt } from '../../../common/http/query-params';
import {
  CONTACT_RECEIPTS,
  ContactReceipt,
  contactSearchOf,
  MAX_CONTACT_SEARCH_LENGTH,
  MIN_NAME_SEARCH_LENGTH,
  PUBLIC_CONTACT_STATUSES,
  PublicContactStatus,
} from '../domain/campaign-contact-filters';
import { CONTACT_FAILURE_KINDS, ContactFailureKind } from '../domain/contact-failure-kind';

/**
 * `page` (zero-based) and `size` (1 to 100, default 100) of a list; the campaign list's query
 * extends it under this name.
 */
export class CampaignContactsQueryDto {
  @ApiPropertyOptional({ default: 0, minimum: 0 })
  @IsOptional()
  @ToInt()
  @IsInt({ message: 'deve ser um número inteiro' })
  @Min(0, { message: 'não pode ser negativo' })
  page?: number;

  @ApiPropertyOptional({ default: 100, minimum: 1, maximum: 100 })
  @IsOptional()
  @ToInt()
  @IsInt({ message: 'deve ser um número inteiro' })
  @Min(1, { message: 'deve ser de 1 a 100' })
  @Max(100, { message: 'deve ser de 1 a 100' })
  size?: number;
}

const oneOf = (values: readonly string[]): { message: string } => ({
  message: `deve ser um de: ${values.join(', ')}`,
});

/** A phone search of any length, or a name search long enough to look up (trimmed first). */
const IsContactSearch = (): PropertyDecorator =>
  ValidateBy({
    name: 'isContactSearch',
    validator: {
      validate: (value: unknown): boolean => {
        if (typeof value !== 'string' || value.length > MAX_CONTACT_SEARCH_LENGTH) {
          return false;
        }
        const search = contactSearchOf(value);
        return (
          search !== null && ('phoneDigits' in search || value.length >= MIN_NAME_SEARCH_LENGTH)
        );
      },
      defaultMessage: () =>
        `deve ter de ${MIN_NAME_SEARCH_LENGTH} a ${MAX_CONTACT_SEARCH_LENGTH} caracteres (ou dígitos do telefone)`,
    },
  });

/** The filters of a campaign's contacts, shared by the list and the export. */
export class CampaignContactFiltersDto {
  @ApiPropertyOptional({
    enum: PUBLIC_CONTACT_STATUSES,
    description: 'PENDING inclui os contatos em envio ou em reconciliação',
  })
  @IsOptional()
  @IsIn(PUBLIC_CONTACT_STATUSES, oneOf(PUBLIC_CONTACT_STATUSES))
  status?: PublicContactStatus;

  @ApiPropertyOptional({
    enum: CONTACT_RECEIPTS,
    description:
      'DELIVERED: entregue (deliveredAt; lida ou reproduzida também conta); READ: lida ou reproduzida; REPLIED: respondeu; NOT_DELIVERED: enviada sem confirmação de entrega, ou recusada pelo WhatsApp depois de aceita (failureKind not_delivered)',
  })
  @IsOptional()
  @IsIn(CONTACT_RECEIPTS, oneOf(CONTACT_RECEIPTS))
  receipt?: ContactReceipt;

  @ApiPropertyOptional({ enum: CONTACT_FAILURE_KINDS })
  @IsOptional()
  @IsIn(CONTACT_FAILURE_KINDS, oneOf(CONTACT_FAILURE_KINDS))
  failureKind?: ContactFailureKind;

  @ApiPropertyOptional({
    maxLength: MAX_CONTACT_SEARCH_LENGTH,
    example: 'jose',
    description:
      'Só dígitos (e espaços, +, -, parênteses): parte do telefone; senão parte do nome, sem diferença de maiúsculas nem acentos (mínimo 3 caracteres)',
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString({ message: 'deve ser um texto' })
  @IsContactSearch()
  search?: string;
}

/** A page of a campaign's contacts, filtered. */
export class CampaignContactsPageQueryDto extends IntersectionType(
  CampaignContactFiltersDto,
  CampaignContactsQueryDto,
) {}

export const CONTACTS_EXPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ContactsExportFormat = (typeof CONTACTS_EXPORT_FORMATS)[number];

/** Every contact of a campaign that the filters match, as a spreadsheet. */
export class CampaignContactsExportQueryDto extends CampaignContactFiltersDto {
  @ApiProperty({ enum: CONTACTS_EXPORT_FORMATS })
  @IsIn(CONTACTS_EXPORT_FORMATS, oneOf(CONTACTS_EXPORT_FORMATS))
  format!: ContactsExportFormat;
}
