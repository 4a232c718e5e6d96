import type { Clock } from '../clock';
import type { Db } from '../db/connect';
import { readSettingValues, SETTING } from './repository';

interface Settings {
  restApiEnabled: boolean;
  defaultTimezone: string;
  maxShiftHours: number;
  punchFutureToleranceSeconds: number;
}

/**
 * How long a process trusts what it read. Settings may be changed by another process (`hrm api
 * enable`) or by hand in the database, and the change must be seen within 2 seconds (docs/api.md, "The first five requests").
 */
export const SETTINGS_TTL_MS = 1000;

/**
 * The settings of one instance, re-read at most once per TTL. Concurrent requests after expiry
 * share one read.
 */
export class SettingsCache {
  private value: Settings | undefined;
  private readAt = 0;
  private reading: Promise<Settings> | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ttlMs = SETTINGS_TTL_MS,
  ) {}

  /** The cached settings while fresh; undefined when a read is due. */
  fresh(): Settings | undefined {
    return this.value && this.clock.now().getTime() - this.readAt < this.ttlMs ? this.value : undefined;
  }

  async get(): Promise<Settings> {
    const fresh = this.fresh();
    if (fresh) return fresh;
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  /** Forget the cached value, after this process changed a setting itself. */
  invalidate(): void {
    this.value = undefined;
  }

  private async read(): Promise<Settings> {
    const values = await readSettingValues(this.db);
    this.value = parseSettings(values);
    this.readAt = this.clock.now().getTime();
    return this.value;
  }
}

export function parseSettings(values: Map<string, string>): Settings {
  return {
    restApiEnabled: isTruthy(values.get(SETTING.restApiEnabled)),
    defaultTimezone: values.get(SETTING.defaultTimezone) || 'UTC',
    maxShiftHours: positiveNumber(values.get(SETTING.maxShiftHours), 24),
    punchFutureToleranceSeconds: positiveNumber(values.get(SETTING.punchFutureToleranceSeconds), 300),
  };
}

/** Hand-edited rows may say 1, true, yes or on (any case); anything else is off. */
function isTruthy(value: string | undefined): boolean {
  return ['1', 'true', 'yes', 'on'].includes((value ?? '').trim().toLowerCase());
}

function positiveNumber(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : fallback;
}
