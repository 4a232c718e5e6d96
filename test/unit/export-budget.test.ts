import { RateLimitedError } from '../../src/errors';
import type { Instance } from '../../src/instances/instance';
import { ExportBudget } from '../../src/pay-periods/export-budget';

// The per-instance budget of streamed exports (docs/pay-periods.md, "Export").

const instance = () => ({}) as Instance;

describe('ExportBudget', () => {
  it('refuses one export past the budget with 429 too_many_exports and Retry-After, and takes it again once a turn is given back', () => {
    const budget = new ExportBudget(1);
    const one = instance();
    const giveBack = budget.take(one);

    let refused: unknown;
    try {
      budget.take(one);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect(refused).toMatchObject({ status: 429, code: 'too_many_exports', headers: { 'Retry-After': '5' } });

    giveBack();
    giveBack();
    const again = budget.take(one);
    expect(() => budget.take(one)).toThrow(RateLimitedError);
    again();
  });

  it('counts each instance apart (cloud mode)', () => {
    const budget = new ExportBudget(1);
    budget.take(instance());

    expect(() => budget.take(instance())).not.toThrow();
  });

  it('caps all instances of the process together (EXPORT_PROCESS_CONCURRENCY), and frees the turn given back', () => {
    const budget = new ExportBudget(2, 2);
    const giveBack = budget.take(instance());
    budget.take(instance());

    let refused: unknown;
    try {
      budget.take(instance());
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ status: 429, code: 'too_many_exports', headers: { 'Retry-After': '5' } });

    giveBack();
    giveBack();
    budget.take(instance());
    expect(() => budget.take(instance())).toThrow(RateLimitedError);
  });
});
