import fs from 'node:fs';
import path from 'node:path';
import type { GroupDayRules } from '../../src/pay-rules/classify';
import type { OvertimeRules, Weekday } from '../../src/pay-rules/settings';

// The published vectors (docs/overtime-vectors.md), as the unit test and the API replay read them.
// Their expected values come from hand-written cases and from the naive reference in
// bench/overtime-vectors.ts (which declares its own types, so it shares nothing with src/).

export interface VectorRecord {
  in_time_utc: string;
  out_time_utc: string | null;
  timezone: string;
}

export interface ExpectedDay {
  date: string;
  records: number;
  worked_hours: string;
  regular_hours: string;
  overtime_hours: string;
  double_time_hours: string;
  /** Only in the vectors with `group_rules`. */
  break_deducted_hours?: string;
}

export interface Vector {
  name: string;
  rules: OvertimeRules;
  /** A pay group's exempt, meal_break and rounding (CONTRACT 6.5); absent: none of them. */
  group_rules?: GroupDayRules;
  workweek_start: Weekday;
  range: { from: string; to: string };
  records: VectorRecord[];
  expected: {
    days: ExpectedDay[];
    totals: { worked_hours: string; regular_hours: string; overtime_hours: string; double_time_hours: string };
    open_records: number;
  };
}

/** docs/overtime-vectors.json as published. */
export function publishedVectors(): { version: number; cases: Vector[] } {
  return JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'overtime-vectors.json'), 'utf8')) as {
    version: number;
    cases: Vector[];
  };
}
