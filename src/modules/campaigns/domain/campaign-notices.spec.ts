import {
  CampaignNotice,
  completionNotice,
  disconnectedNotice,
  failedNotice,
  NoticeSubject,
  pausedNotice,
  subjectOf,
} from './campaign-notices';

const campaign: NoticeSubject = { id: 7, name: 'Black Friday', automationRunId: null };
const run: NoticeSubject = { id: 8, name: 'Automação: Boas-vindas', automationRunId: '3' };
const counts = { totalContacts: 10, sentContacts: 7, failedContacts: 2 };

describe('subjectOf', () => {
  it.each<[NoticeSubject, string]>([
    [campaign, 'A campanha "Black Friday"'],
    [run, 'A execução da automação "Boas-vindas"'],
  ])('names %j', (subject, expected) => {
    expect(subjectOf(subject)).toBe(expected);
  });
});

describe('campaign notices', () => {
  const since = new Date('2026-11-26T10:00:00.000Z');
  it.each<[string, CampaignNotice, CampaignNotice]>([
    [
      'completion',
      completionNotice(campaign, counts),
      {
        text: '✅ A campanha "Black Friday" foi concluída: 7 enviadas, 2 com falha, de 10 contatos.',
        reason: 'campaign_completed',
        dedupKey: 'campaign:7:completed',
      },
    ],
    [
      'failure',
      failedNotice(run, 'A instância do gateway não existe'),
      {
        text: '❌ A execução da automação "Boas-vindas" falhou: A instância do gateway não existe.',
        reason: 'campaign_failed',
        dedupKey: 'campaign:8:failed',
      },
    ],
    [
      'pause, keyed by the progress it paused at',
      pausedNotice(campaign, counts, 'a empresa foi desativada'),
      {
        text: '⏸️ A campanha "Black Friday" foi pausada: a empresa foi desativada. Corrija e retome o envio.',
        reason: 'campaign_paused',
        dedupKey: 'campaign:7:paused:9',
      },
    ],
    [
      'disconnection, keyed by when it began',
      disconnectedNotice(campaign, false, since),
      {
        text: '⚠️ A instância do WhatsApp da campanha "Black Friday" desconectou. O envio continua quando ela conectar.',
        reason: 'instance_disconnected',
        dedupKey: 'campaign:7:disconnected:2026-11-26T10:00:00.000Z',
      },
    ],
    [
      'an instance never paired',
      disconnectedNotice(campaign, true, since),
      {
        text: '⚠️ A instância do WhatsApp da campanha "Black Friday" não está pareada: leia o QR code da instância. O envio continua quando ela conectar.',
        reason: 'instance_disconnected',
        dedupKey: 'campaign:7:disconnected:2026-11-26T10:00:00.000Z',
      },
    ],
  ])('%s', (_name, notice, expected) => {
    expect(notice).toEqual(expected);
  });
});
