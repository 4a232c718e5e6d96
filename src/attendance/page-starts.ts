import type { Clock } from '../clock';
import { offsetOf } from '../http/pagination';
import type { Instance } from '../instances/instance';
import { TtlCache } from '../ttl-cache';
import type { AttendancePageStart } from './list-repository';

/**
 * Pages that begin at least this many rows in are read from their first record (keyset paging)
 * when it is known; shallower ones skip their few rows with OFFSET, which is cheap and always
 * exact, even right after another process's write.
 */
const KEYSET_FROM_OFFSET = 1000;

/**
 * Per instance: where recent pages of attendance lists start, kept for 2 seconds and forgotten at
 * once when this process writes attendance (as the employee list does, src/employees/list.ts). A
 * client reading page after page, or asking the same deep page again, gets each one from its
 * first record onward instead of skipping every record before it. A deep page nobody asked the
 * page before of is read with a deferred join (the skipped rows' ids only).
 */
class AttendancePageStarts {
  private readonly starts: TtlCache<string, AttendancePageStart>;

  constructor(clock: Clock, ttlMs = 2000) {
    this.starts = new TtlCache(clock, ttlMs, 10_000);
  }

  /** The start of `page` of the list `question` names, if known and the page is deep. */
  get(question: string, page: { page: number; limit: number }): AttendancePageStart | undefined {
    if (offsetOf(page.page, page.limit) < KEYSET_FROM_OFFSET) return undefined;
    return this.starts.get(keyOf(question, page.limit, page.page));
  }

  /** What serving `page` learnt: its own start and the next page's. */
  remember(question: string, page: { page: number; limit: number }, first?: AttendancePageStart, next?: AttendancePageStart): void {
    if (first && offsetOf(page.page, page.limit) >= KEYSET_FROM_OFFSET) this.starts.set(keyOf(question, page.limit, page.page), first);
    if (next && offsetOf(page.page + 1, page.limit) >= KEYSET_FROM_OFFSET)
      this.starts.set(keyOf(question, page.limit, page.page + 1), next);
  }

  clear(): void {
    this.starts.clear();
  }
}

const keyOf = (question: string, limit: number, page: number) => `${question}|${limit}|${page}`;

const pageStarts = new WeakMap<Instance, AttendancePageStarts>();

/** The instance's attendance page starts: one per instance, in this module so every writer can forget them. */
export function attendancePageStartsOf(instance: Instance): AttendancePageStarts {
  let starts = pageStarts.get(instance);
  if (!starts) pageStarts.set(instance, (starts = new AttendancePageStarts(instance.clock)));
  return starts;
}

/** What every path that writes attendance calls once its write has committed. */
export function forgetAttendancePages(instance: Instance): void {
  pageStarts.get(instance)?.clear();
}
