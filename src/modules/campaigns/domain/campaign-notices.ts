import type { CampaignCounts } from './campaign-stats';

/** What a notice needs of its campaign: automation runs are named after their automation. */
export interface NoticeSubject {
  id: number;
  name: string;
  automationRunId: string | null;
}

/**
 * A WhatsApp notice to the campaign's notification phone: its text, the reason the notices
 * count it under, and the key that sends it once.
 */
export interface CampaignNotice {
  text: string;
  reason: string;
  dedupKey: string;
}

export function subjectOf(campaign: NoticeSubject): string {
  return campaign.automationRunId === null
    ? `A campanha "${campaign.name}"`
    : `A execução da ${campaign.name.replace(/^Automação: /, 'automação "')}"`;
}

export function completionNotice(campaign: NoticeSubject, counts: CampaignCounts): CampaignNotice {
  return campaignNotice(
    campaign,
    'completed',
    `✅ ${subjectOf(campaign)} foi concluída: ${counts.sentContacts} enviadas, ${counts.failedContacts} com falha, de ${counts.totalContacts} contatos.`,
  );
}

export function failedNotice(campaign: NoticeSubject, reason: string): CampaignNotice {
  return campaignNotice(campaign, 'failed', `❌ ${subjectOf(campaign)} falhou: ${reason}.`);
}

/** One per pause at a given progress: a campaign paused again after a resume notifies again. */
export function pausedNotice(
  campaign: NoticeSubject,
  counts: CampaignCounts,
  reason: string,
): CampaignNotice {
  return campaignNotice(
    campaign,
    `paused:${counts.sentContacts + counts.failedContacts}`,
    `⏸️ ${subjectOf(campaign)} foi pausada: ${reason}. Corrija e retome o envio.`,
  );
}

/** One per campaign and disconnection (`since`: when the disconnection began). */
export function disconnectedNotice(
  campaign: NoticeSubject,
  notPaired: boolean,
  since: Date,
): CampaignNotice {
  const what = notPaired ? 'não está pareada: leia o QR code da instância' : 'desconectou';
  return {
    text: `⚠️ A instância do WhatsApp da campanha "${campaign.name}" ${what}. O envio continua quando ela conectar.`,
    reason: 'instance_disconnected',
    dedupKey: `campaign:${campaign.id}:disconnected:${since.toISOString()}`,
  };
}

/** One per campaign and lock (`lockedAt`: when the lock began). */
export function reachOutLockedNotice(
  campaign: NoticeSubject,
  lock: { scope: 'COLD' | 'ALL'; lockedAt: Date },
  until: string,
): CampaignNotice {
  const who =
    lock.scope === 'ALL'
      ? 'não envia mais nada'
      : 'envia só a quem conversou com o número há pouco';
  return {
    text: `🔒 O WhatsApp bloqueou o número de "${campaign.name}" para quem não conversa com ele (erro 463): até ${until} ele ${who}. Os outros contatos esperam.`,
    reason: 'reachout_locked',
    dedupKey: `campaign:${campaign.id}:reachout:${lock.lockedAt.toISOString()}:${lock.scope}`,
  };
}

/** `what` keys the notice; its first part (before any `:`) names its reason. */
function campaignNotice(campaign: NoticeSubject, what: string, text: string): CampaignNotice {
  return {
    text,
    reason: `campaign_${what.split(':')[0]}`,
    dedupKey: `campaign:${campaign.id}:${what}`,
  };
}

/** One per sender and loss (`lostAt`: when it was lost), sent through a number still sending. */
export function senderLostNotice(
  campaign: NoticeSubject,
  sender: { instance: string; reason: string; lostAt: Date },
  movedContacts: number,
): CampaignNotice {
  return {
    text: `🔀 ${subjectOf(campaign)} perdeu o número ${sender.instance} (${sender.reason}). ${movedContacts} contatos pendentes passaram aos outros números do pool.`,
    reason: 'sender_lost',
    dedupKey: `campaign:${campaign.id}:sender:${sender.instance}:${sender.lostAt.toISOString()}`,
  };
}
