import ical, { ICalEventStatus } from 'ical-generator';
import type { FeedDayOff } from './days-off';
import type { FeedShift } from './repository';

// The text of a calendar feed (RFC 5545). ical-generator writes the objects; the lines are then
// folded here by octets (RFC 5545 3.1: at most 75 octets a line, continuation lines start with a
// space), never inside a UTF-8 character, and end in CRLF.

const MAX_OCTETS = 75;

/** One content line folded into lines of at most 75 octets, a character never split. */
export function foldLine(line: string): string[] {
  const lines: string[] = [];
  let current = '';
  let octets = 0;
  for (const character of line) {
    const size = Buffer.byteLength(character);
    // Continuation lines begin with a space, which counts towards their 75 octets.
    if (octets + size > MAX_OCTETS) {
      lines.push(current);
      current = ` ${character}`;
      octets = 1 + size;
    } else {
      current += character;
      octets += size;
    }
  }
  lines.push(current);
  return lines;
}

/** Unfolds whatever folding the generator did and folds again by octets, with CRLF after every line. */
export function refold(text: string): string {
  const unfolded = text
    .replace(/\r?\n[ \t]/g, '')
    .split(/\r?\n/)
    .filter((line) => line.length > 0);
  return `${unfolded.flatMap(foldLine).join('\r\n')}\r\n`;
}

/**
 * The feed of an employee's shifts: each a VEVENT with a UID stable for the shift's life, SEQUENCE
 * its version (raised by every change), DTSTART/DTEND in UTC, cancelled ones STATUS:CANCELLED.
 * DTSTAMP is the shift's last change, so the same shifts give the same bytes (and ETag). Then the
 * days off (approved leave, holidays) as all-day events: DTSTART/DTEND dates (VALUE=DATE).
 */
export function calendarText(shifts: readonly FeedShift[], daysOff: readonly FeedDayOff[] = []): string {
  const calendar = ical({ name: 'Shifts', prodId: { company: 'hrm', product: 'schedules', language: 'EN' } });
  for (const shift of shifts) {
    calendar.createEvent({
      id: `shift-${shift.id}@hrm`,
      start: shift.start,
      end: shift.end,
      stamp: shift.updated_at,
      summary: shift.title,
      description: shift.notes ?? undefined,
      sequence: shift.version,
      status: shift.status === 'cancelled' ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    });
  }
  for (const day of daysOff) {
    calendar.createEvent({
      id: day.uid,
      // Dates as UTC midnights: with no time zone ical-generator writes their UTC date.
      start: new Date(`${day.start}T00:00:00Z`),
      end: new Date(`${day.end}T00:00:00Z`),
      allDay: true,
      stamp: day.stamp,
      summary: day.summary,
      sequence: day.sequence,
      status: ICalEventStatus.CONFIRMED,
    });
  }
  return refold(calendar.toString());
}
