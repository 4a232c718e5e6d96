import { parseSettings } from '../../src/settings/cache';

describe('parseSettings', () => {
  it('reads the defaults of a fresh install', () => {
    const settings = parseSettings(
      new Map([
        ['rest_api_enabled', '0'],
        ['default_timezone', 'UTC'],
        ['max_shift_hours', '24'],
        ['punch_future_tolerance_seconds', '300'],
      ]),
    );

    expect(settings).toEqual({ restApiEnabled: false, defaultTimezone: 'UTC', maxShiftHours: 24, punchFutureToleranceSeconds: 300 });
  });

  it.each(['1', 'true', 'TRUE', ' yes ', 'on'])('treats a hand-edited %j as enabled', (value) => {
    expect(parseSettings(new Map([['rest_api_enabled', value]])).restApiEnabled).toBe(true);
  });

  it.each(['0', 'false', 'no', '', 'enabled?'])('treats %j as disabled', (value) => {
    expect(parseSettings(new Map([['rest_api_enabled', value]])).restApiEnabled).toBe(false);
  });

  it('falls back to the defaults for missing or unreadable values', () => {
    expect(parseSettings(new Map([['max_shift_hours', 'lots']]))).toEqual({
      restApiEnabled: false,
      defaultTimezone: 'UTC',
      maxShiftHours: 24,
      punchFutureToleranceSeconds: 300,
    });
  });
});
