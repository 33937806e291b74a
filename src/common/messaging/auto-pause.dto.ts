import { IntegerSetting } from '../http/validation';
import { AUTO_PAUSE_BOUNDS, AutoPauseThresholds, DEFAULT_AUTO_PAUSE } from './auto-pause';

/** One setting: a whole number within its bounds, described with its default. */
function Threshold(key: keyof AutoPauseThresholds, description: string): PropertyDecorator {
  return IntegerSetting(AUTO_PAUSE_BOUNDS[key], DEFAULT_AUTO_PAUSE[key], description);
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
