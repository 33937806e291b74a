import { candidateJids } from './whatsapp-jid';

describe('candidateJids', () => {
  it('gives a Brazilian mobile with and without its ninth digit', () => {
    expect(candidateJids('5511987654321')).toEqual([
      '5511987654321@s.whatsapp.net',
      '551187654321@s.whatsapp.net',
    ]);
    expect(candidateJids('551187654321')).toEqual([
      '551187654321@s.whatsapp.net',
      '5511987654321@s.whatsapp.net',
    ]);
  });

  it('gives a landline or a foreign number as it is', () => {
    expect(candidateJids('551133334444')).toEqual(['551133334444@s.whatsapp.net']);
    expect(candidateJids('14155550123')).toEqual(['14155550123@s.whatsapp.net']);
  });
});
