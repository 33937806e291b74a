import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ToInt } from '../../../common/http/query-params';

/** `page` (zero-based) and `size` (1 to 100, default 100) of a campaign's contacts. */
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
