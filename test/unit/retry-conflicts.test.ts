import { retryConflicts, RunAgainError } from '../../src/db/retry-conflicts';

// Which failures run a write transaction again. The database's own conflicts (a deadlock, a
// certification conflict on Galera) are exercised for real in test/integration/galera-cluster.test.ts.

describe('retryConflicts', () => {
  it('runs a transaction again when it asks for it (RunAgainError), and answers what the next run returns', async () => {
    let runs = 0;

    const result = await retryConflicts(async () => {
      runs++;
      if (runs < 3) throw new RunAgainError(new Error('duplicate key'));
      return 'done';
    });

    expect(result).toBe('done');
    expect(runs).toBe(3);
  });

  it('passes any other error on at once', async () => {
    let runs = 0;
    const failure = new Error('not a conflict');

    await expect(
      retryConflicts(async () => {
        runs++;
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(runs).toBe(1);
  });

  it('after the last run, passes on the conflict a RunAgainError carried, not the request to run again', async () => {
    const conflict = Object.assign(new Error('duplicate key'), { code: 'ER_DUP_ENTRY' });
    let runs = 0;

    await expect(
      retryConflicts(async () => {
        runs++;
        throw new RunAgainError(conflict);
      }),
    ).rejects.toBe(conflict);
    expect(runs).toBe(16);
  });
});
