import { formatLocalDateTime } from '../../../common/time/local-date-time';
import type { CampaignContactRow } from './campaign-contact-row';
import { publicContactStatus } from './campaign-contact-status';

/** A campaign's contact as the export reads it: the list's columns it shows, and the opt-out. */
export type CampaignContactExportRow = Pick<
  CampaignContactRow,
  | 'id'
  | 'phoneNumber'
  | 'name'
  | 'status'
  | 'sentAt'
  | 'failedAt'
  | 'failureReason'
  | 'failureKind'
  | 'deliveredAt'
  | 'readAt'
  | 'playedAt'
  | 'repliedAt'
  | 'senderInstance'
> & { optedOut: boolean };

/** The export's columns, in order, with the headers an Excel set to Portuguese shows. */
export const CONTACT_EXPORT_HEADERS = [
  'Telefone',
  'Nome',
  'Status',
  'Tipo de falha',
  'Motivo da falha',
  'Remetente',
  'Enviada em',
  'Entregue em',
  'Lida em',
  'Respondida em',
  'Descadastrado',
] as const;

/**
 * What makes a spreadsheet read a cell as a formula (CSV injection, OWASP): `=`, `+`, `-`,
 * `@`, and a tab or carriage return before them.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A value no spreadsheet runs: one that would start a formula gets a leading `'`, which keeps
 * it text (the apostrophe shows). Phones never need it: they are stored as digits, no `+`.
 */
export function neutralizeFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** dd/MM/yyyy HH:mm:ss from the API's local yyyy-MM-ddTHH:mm:ss (its offsets are cached). */
function exportDate(date: Date | null, zone: string): string {
  const local = formatLocalDateTime(date, zone);
  if (!local) {
    return '';
  }
  return `${local.slice(8, 10)}/${local.slice(5, 7)}/${local.slice(0, 4)} ${local.slice(11, 19)}`;
}

/**
 * One contact as the export's cells, every one text, as the contacts list shows it: sentAt
 * only when SENT, the failure only when FAILED (unrecorded when it has no kind); dates day
 * first in the application's time zone (dd/MM/yyyy HH:mm:ss), as Excel in Portuguese reads them.
 */
export function contactExportCells(row: CampaignContactExportRow, zone: string): string[] {
  const status = publicContactStatus(row.status);
  const failed = status === 'FAILED';
  const cells = [
    row.phoneNumber,
    row.name,
    status,
    failed ? (row.failureKind ?? 'unrecorded') : '',
    failed ? (row.failureReason ?? '') : '',
    row.senderInstance,
    status === 'SENT' ? exportDate(row.sentAt, zone) : '',
    exportDate(row.deliveredAt, zone),
    exportDate(row.readAt, zone),
    exportDate(row.repliedAt, zone),
    row.optedOut ? 'sim' : 'não',
  ];
  return cells.map(neutralizeFormula);
}
