import { normalizePhone } from '../../../common/phone/phone-number';
import { planBlockImport, summarizeBlockImport } from './block-import';

const normalize = (input: string): string | null => normalizePhone(input, 55);

describe('planBlockImport', () => {
  it('keeps each number once, however it was written, and counts the repeats', () => {
    const plan = planBlockImport(
      ['11987654321', '+55 (11) 98765-4321', '5511987654321', '11 3333-4444'],
      normalize,
    );
    expect(plan.phones).toEqual(['551133334444', '5511987654321']);
    expect(plan.repeated).toBe(2);
    expect(plan.failed).toBe(0);
    expect(plan.totalProvided).toBe(4);
  });

  it('reports each unreadable input as given and counts every occurrence', () => {
    const plan = planBlockImport(['abc', '123', 'abc', '11987654321'], normalize);
    expect(plan.failed).toBe(3);
    expect([...plan.failedNumbers]).toEqual([
      ['abc', 'número de telefone inválido'],
      ['123', 'número de telefone inválido'],
    ]);
    expect(plan.phones).toEqual(['5511987654321']);
  });
});

describe('summarizeBlockImport', () => {
  it('counts numbers not newly blocked and repeats as already blocked, so the counts add up', () => {
    const plan = planBlockImport(['11987654321', '11987654321', '11 3333-4444', 'x'], normalize);
    const summary = summarizeBlockImport(plan, 1);
    expect(summary).toEqual({
      success: true,
      totalProvided: 4,
      successfullyBlocked: 1,
      alreadyBlocked: 2,
      failed: 1,
      failedNumbers: new Map([['x', 'número de telefone inválido']]),
    });
    expect(summary.successfullyBlocked + summary.alreadyBlocked + summary.failed).toBe(
      summary.totalProvided,
    );
  });

  it('fails with an error when no input is a valid number', () => {
    const summary = summarizeBlockImport(planBlockImport(['x', 'y'], normalize), 0);
    expect(summary.success).toBe(false);
    expect(summary.error).toBe('Nenhum número de telefone válido foi informado');
    expect(summary.failed).toBe(2);
  });

  it('succeeds when every valid number was already blocked', () => {
    const summary = summarizeBlockImport(planBlockImport(['11987654321'], normalize), 0);
    expect(summary.success).toBe(true);
    expect(summary.error).toBeUndefined();
    expect(summary.alreadyBlocked).toBe(1);
  });
});
