import { defineColumns } from './column';
import { SYSTEM_DATABASE_NAME, UserDatabase } from './user-database.entity';

/** docs/API-RULES.md §6: every phone the company has sent a campaign to. */
export function systemDatabase(companyId: number, now: Date): UserDatabase {
  return UserDatabase.create(
    {
      companyId,
      name: SYSTEM_DATABASE_NAME,
      description:
        'Mantida pelo serviço: cada número que recebeu uma campanha, com a última campanha e o último envio',
      origin: 'SYSTEM',
      columns: defineColumns([
        { originalName: 'phone', displayName: 'Telefone', dataType: 'PHONE', isPhoneColumn: true },
        { originalName: 'name', displayName: 'Nome', dataType: 'TEXT', isPhoneColumn: false },
        {
          originalName: 'last_campaign_id',
          displayName: 'Última campanha',
          dataType: 'NUMBER',
          isPhoneColumn: false,
        },
        {
          originalName: 'last_sent_at',
          displayName: 'Último envio',
          dataType: 'DATE',
          isPhoneColumn: false,
        },
      ]),
    },
    now,
  );
}
