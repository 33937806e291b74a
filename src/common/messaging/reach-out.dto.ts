import { IntegerSetting } from '../http/validation';
import { DEFAULT_REACH_OUT, REACH_OUT_BOUNDS, ReachOutSettings } from './reach-out';

/** One setting: a whole number within its bounds, described with its default. */
function Setting(key: keyof ReachOutSettings, description: string): PropertyDecorator {
  return IntegerSetting(REACH_OUT_BOUNDS[key], DEFAULT_REACH_OUT[key], description);
}

/** The reach-out lock's thresholds and the warm and reply windows (company settings). */
export class ReachOutDto implements ReachOutSettings {
  @Setting(
    'lockRefusals',
    'Mensagens recusadas pelo WhatsApp, entre os últimos envios a contatos frios, que bloqueiam o envio a contatos frios',
  )
  lockRefusals!: number;

  @Setting('lockSample', 'Quantos dos últimos envios da instância a contatos frios são observados')
  lockSample!: number;

  @Setting(
    'lockCooldownHours',
    'Horas de espera do bloqueio (dobradas quando a instância é bloqueada de novo em até 7 dias)',
  )
  lockCooldownHours!: number;

  @Setting('warmDays', 'Dias desde a última mensagem da pessoa em que o contato é quente')
  warmDays!: number;

  @Setting(
    'replyWindowHours',
    'Horas depois da mensagem da campanha em que uma mensagem da pessoa conta como resposta',
  )
  replyWindowHours!: number;
}
