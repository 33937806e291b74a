import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';

/** The kinds of media a template's header carries (Meta's header formats IMAGE, VIDEO, DOCUMENT). */
export const TEMPLATE_HEADER_MEDIA_TYPES = ['image', 'video', 'document'] as const;

export class TemplateHeaderMediaDto {
  @ApiProperty({ enum: TEMPLATE_HEADER_MEDIA_TYPES, example: 'image' })
  @IsIn(TEMPLATE_HEADER_MEDIA_TYPES, { message: 'deve ser image, video ou document' })
  mediaType!: (typeof TEMPLATE_HEADER_MEDIA_TYPES)[number];

  @ApiProperty({ example: 'https://cdn.example.com/oferta.png', maxLength: 2000 })
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(2000, { message: 'deve ter no máximo 2000 caracteres' })
  @Matches(/^https?:\/\/[^\s/?#]+[^\s]*$/i, { message: 'deve ser uma URL http(s)' })
  url!: string;
}

/**
 * An approved message template of the WhatsApp Cloud API, as a campaign or an automation sends
 * it (docs/API-RULES.md, "Template campaigns"): only on a CLOUD_API configuration.
 */
export class CampaignTemplateDto {
  @ApiProperty({ example: 'oferta_black_friday', maxLength: 512 })
  @IsString({ message: 'deve ser um texto' })
  @IsNotEmpty({ message: 'é obrigatório' })
  @MaxLength(512, { message: 'deve ter no máximo 512 caracteres' })
  name!: string;

  @ApiProperty({ example: 'pt_BR', description: 'O código de idioma do modelo na Meta' })
  @IsString({ message: 'deve ser um texto' })
  @Matches(/^[a-z]{2,3}(_[A-Za-z]{2,4})?$/, {
    message: 'deve ser um código de idioma (ex.: pt_BR)',
  })
  language!: string;

  @ApiPropertyOptional({
    example: ['{PrimeiroNome}', '{cidade}', 'texto fixo'],
    type: [String],
    description:
      'Os parâmetros do corpo ({{1}}, {{2}}, …), em ordem, tantos quantos o modelo tem. Cada um aceita as variáveis e variantes das mensagens; um parâmetro que fica vazio para um contato falha o contato (mensagem em branco).',
  })
  @IsOptional()
  @IsArray({ message: 'deve ser uma lista de textos' })
  @ArrayMaxSize(100, { message: 'pode ter no máximo 100 parâmetros' })
  @IsString({ each: true, message: 'cada parâmetro deve ser um texto' })
  @MaxLength(1024, { each: true, message: 'cada parâmetro deve ter no máximo 1024 caracteres' })
  bodyParameters?: string[];

  @ApiPropertyOptional({
    type: TemplateHeaderMediaDto,
    description: 'Obrigatória quando o cabeçalho do modelo é uma imagem, um vídeo ou um documento',
  })
  @IsOptional()
  @IsObject({ message: 'deve ser um objeto' })
  @ValidateNested()
  @Type(() => TemplateHeaderMediaDto)
  headerMedia?: TemplateHeaderMediaDto;
}
