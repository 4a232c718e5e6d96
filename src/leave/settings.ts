import { z } from 'zod';
import type { Db } from '../db/connect';
import { DEFAULT_LEAVE_SETTINGS, type LeaveSettings, WEEKDAY_NAMES, type WeekdayName } from '../leave-rules/hours';
import { readSetting, SETTING, writeSetting } from '../settings/repository';

// The instance settings `work_week` and `standard_day_hours` (docs/leave.md, "Settings"): two rows
// of the settings table, read and written by GET/PUT /leave-settings. A row an admin garbled by
// hand reads as its default rather than failing every leave write.

export const workWeekSchema = z
  .array(z.enum(WEEKDAY_NAMES))
  .max(7)
  .refine((days) => new Set(days).size === days.length, { error: 'must not name a day twice' })
  .meta({ description: 'The working days of the week', example: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] });

export const standardDayHoursSchema = z
  .number({ error: 'must be a number of hours from 0.25 to 24' })
  .min(0.25, { error: 'must be a number of hours from 0.25 to 24' })
  .max(24, { error: 'must be a number of hours from 0.25 to 24' })
  .meta({ description: 'The hours of a full day of leave or holiday', example: 8 });

export const leaveSettingsSchema = z
  .strictObject({ work_week: workWeekSchema, standard_day_hours: standardDayHoursSchema })
  .meta({ id: 'LeaveSettings', description: 'The work week and the hours of a day (docs/leave.md, "Settings")' });

export const leaveSettingsUpdate = leaveSettingsSchema.partial().meta({ id: 'LeaveSettingsUpdate' });

function parseStored<T>(schema: z.ZodType<T>, text: string | undefined, fallback: T): T {
  if (text === undefined) return fallback;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : fallback;
  } catch {
    return fallback;
  }
}

export async function readLeaveSettings(db: Db): Promise<LeaveSettings> {
  const [workWeek, hours] = await Promise.all([readSetting(db, SETTING.workWeek), readSetting(db, SETTING.standardDayHours)]);
  return {
    work_week: sortedWeek(parseStored<WeekdayName[]>(workWeekSchema, workWeek, [...DEFAULT_LEAVE_SETTINGS.work_week])),
    standard_day_hours: parseStored(standardDayHoursSchema, hours, DEFAULT_LEAVE_SETTINGS.standard_day_hours),
  };
}

function sortedWeek(days: readonly WeekdayName[]): WeekdayName[] {
  return WEEKDAY_NAMES.filter((day) => days.includes(day));
}

export async function writeLeaveSettings(db: Db, change: Partial<LeaveSettings>, now: Date): Promise<LeaveSettings> {
  if (change.work_week !== undefined) await writeSetting(db, SETTING.workWeek, JSON.stringify(sortedWeek(change.work_week)), now);
  if (change.standard_day_hours !== undefined) await writeSetting(db, SETTING.standardDayHours, String(change.standard_day_hours), now);
  return readLeaveSettings(db);
}
