import type { DayRecord, DayShift } from './types';

// Which shift a record belongs to (docs/schedules.md, "Matching"): the shift whose window
// [start − check_in_window, end + check_out_window] holds the record's start; of several, the one
// whose start is nearest (the earlier on a tie). Only the start decides: a record crossing
// midnight stays with the shift it began in.

const MINUTE = 60_000;

export function windowOf(shift: DayShift): { opens: number; closes: number } {
  return { opens: shift.start - shift.check_in_window_minutes * MINUTE, closes: shift.end + shift.check_out_window_minutes * MINUTE };
}

/** The shift id of every record that belongs to one. */
export function matchRecords(shifts: readonly DayShift[], records: readonly DayRecord[]): Map<number, number> {
  const matched = new Map<number, number>();
  for (const record of records) {
    let best: DayShift | undefined;
    for (const shift of shifts) {
      const { opens, closes } = windowOf(shift);
      if (record.start < opens || record.start > closes) continue;
      const distance = Math.abs(record.start - shift.start);
      const bestDistance = best ? Math.abs(record.start - best.start) : Infinity;
      if (distance < bestDistance || (distance === bestDistance && best && shift.start < best.start)) best = shift;
    }
    if (best) matched.set(record.id, best.id);
  }
  return matched;
}
