import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { AUTO_PAUSE_BOUNDS, AutoPauseThresholds, DEFAULT_AUTO_PAUSE } from './auto-pause';

/** One threshold: a whole number within its bounds, described with its default. */
function Threshold(key: keyof AutoPauseThresholds, description: string): PropertyDecorator {
  const [min, max] = AUTO_PAUSE_BOUNDS[key];
  return applyDecorators(
    ApiProperty({ example: DEFAULT_AUTO_PAUSE[key], minimum: min, maximum: max, description }),
    IsInt({ message: 'deve ser um número inteiro' }),
    Min(min, { message: `deve ser no mínimo ${min}` }),
    Max(max, { message: `deve ser no máximo ${max}` }),
  );
}

/** The thresholds of the automatic pause in a request body (company settings). */
export class AutoPauseDto implements AutoPauseThresholds {
  @Threshold('failuresInRow', 'Envios seguidos com falha que pausam a campanha')
  failuresInRow!: number;

  @Threshold(
    'refusedPercent',
    'Percentual de números fora do WhatsApp, entre os primeiros envios, que pausa',
  )
  refusedPercent!: number;

  @Threshold('refusedSample', 'Quantos primeiros envios de cada campanha são observados')
  refusedSample!: number;
}
