import { ApiProperty } from '@nestjs/swagger';
import { IsArray, IsInt, IsString } from 'class-validator';
import type { SendingWindow } from './sending-window';

/**
 * A sending window in a request body (campaigns, company settings). The decorators check the
 * shape (and refuse unknown keys through the global pipe); sendingWindowProblems() checks the
 * rules, so that every body that carries a window says the same about it.
 */
export class SendingWindowDto implements SendingWindow {
  @ApiProperty({
    type: [Number],
    example: [1, 2, 3, 4, 5],
    description: 'Dias ISO: 1 = segunda … 7 = domingo',
  })
  @IsArray({ message: 'deve ser uma lista de dias da semana, de 1 (segunda) a 7 (domingo)' })
  @IsInt({ each: true, message: 'deve ter dias da semana de 1 (segunda) a 7 (domingo)' })
  days!: number[];

  @ApiProperty({ example: '08:00', description: 'HH:mm, início (incluído)' })
  @IsString({ message: 'deve ser um horário HH:mm' })
  start!: string;

  @ApiProperty({ example: '20:00', description: 'HH:mm, fim (excluído), depois do início' })
  @IsString({ message: 'deve ser um horário HH:mm' })
  end!: string;

  @ApiProperty({ example: 'America/Sao_Paulo', description: 'Fuso IANA' })
  @IsString({ message: 'deve ser um fuso horário IANA, como America/Sao_Paulo' })
  timezone!: string;
}
