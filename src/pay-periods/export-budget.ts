import { RateLimitedError } from '../errors';
import type { Instance } from '../instances/instance';

/** Seconds a refused export is told to wait: an export of 20,000 employees takes a few seconds. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Exports streamed at once per instance (one instance per process outside cloud mode), at most
 * EXPORT_CONCURRENCY (docs/pay-periods.md, "Export"). Past it an export is refused at once with
 * 429 `too_many_exports` rather than queued: queued exports shared the database and the event
 * loop and all of them ran out of time (503) before streaming began; accepted ones now finish.
 * In cloud mode many instances share one process (its event loop and pools): `processLimit`
 * (EXPORT_PROCESS_CONCURRENCY) caps all of them together.
 */
export class ExportBudget {
  private readonly running = new WeakMap<Instance, number>();
  private inProcess = 0;

  constructor(
    private readonly limit: number,
    private readonly processLimit = Infinity,
  ) {}

  /** Takes a turn for `instance`, or throws 429; the returned function gives it back (once). */
  take(instance: Instance): () => void {
    const running = this.running.get(instance) ?? 0;
    if (running >= this.limit)
      throw new RateLimitedError({
        code: 'too_many_exports',
        retryAfterSeconds: RETRY_AFTER_SECONDS,
        detail: `At most ${this.limit} pay-period export${this.limit === 1 ? ' is' : 's are'} streamed at once; try again shortly`,
      });
    if (this.inProcess >= this.processLimit)
      throw new RateLimitedError({
        code: 'too_many_exports',
        retryAfterSeconds: RETRY_AFTER_SECONDS,
        detail: 'This server is streaming as many pay-period exports as it may at once; try again shortly',
      });
    this.running.set(instance, running + 1);
    this.inProcess += 1;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.running.set(instance, (this.running.get(instance) ?? 1) - 1);
      this.inProcess -= 1;
    };
  }
}
