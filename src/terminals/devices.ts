import { type KeyObject, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { signDeviceToken } from '../tokens/tokens';
import type { Db } from '../db/connect';
import { fromSqlDateTime, sqlDateTimeToIso, toSqlDateTime } from '../db/sql-time';
import { timeZone } from '../http/field-schemas';

// Attendance terminals (devices) and their tokens. A device's token is a JWT like a user's, with
// `device:<id>` as its subject and its jti kept in the device's row; it is valid while that row
// is not revoked (deleted), the device is active and the token has not expired.

/** Devices upload for years without anyone at hand to renew a token: ten years, revocable at any time. */
const DEVICE_TOKEN_LIFETIME_MS = 10 * 365 * 24 * 3600 * 1000;

interface Device {
  id: number;
  name: string;
  timezone: string;
  active: boolean;
  tokenId: string;
  tokenExpiresAt: Date;
  lastUsedAt: Date | null;
  revoked: boolean;
  createdAt: string;
}

export const createDeviceSchema = z.strictObject({
  name: z
    .string({ error: 'must be text' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(100, { error: 'must be at most 100 characters' }),
  timezone: timeZone.optional(),
  active: z.boolean({ error: 'must be true or false' }).optional(),
});

type CreateDeviceInput = z.output<typeof createDeviceSchema>;

/** A device as answered (never its token). */
export function toDeviceResponse(device: Device): Record<string, unknown> {
  return {
    id: String(device.id),
    name: device.name,
    timezone: device.timezone,
    active: device.active,
    created_at: sqlDateTimeToIso(device.createdAt),
    last_used_at: device.lastUsedAt && device.lastUsedAt.toISOString(),
  };
}

function toDevice(row: Record<string, unknown>): Device {
  return {
    id: Number(row.id),
    name: String(row.name),
    timezone: String(row.timezone),
    active: Boolean(row.active),
    tokenId: String(row.token_id),
    tokenExpiresAt: fromSqlDateTime(String(row.token_expires_at)),
    lastUsedAt: row.last_used_at == null ? null : fromSqlDateTime(String(row.last_used_at)),
    revoked: row.revoked_at != null,
    createdAt: String(row.created_at),
  };
}

/**
 * Creates a device and signs its token, which is shown to the admin once and never stored.
 * The timezone defaults to the instance's `default_timezone`.
 */
export async function createDevice(
  db: Db,
  key: KeyObject,
  input: CreateDeviceInput,
  context: { now: Date; defaultTimezone: string },
): Promise<{ device: Device; token: string }> {
  const tokenId = randomUUID();
  const expiresAt = new Date(context.now.getTime() + DEVICE_TOKEN_LIFETIME_MS);
  const now = toSqlDateTime(context.now);
  const columns = {
    name: input.name,
    timezone: input.timezone ?? context.defaultTimezone,
    active: input.active ?? true,
    token_id: tokenId,
    token_expires_at: toSqlDateTime(expiresAt),
    created_at: now,
    updated_at: now,
  };
  const [id] = await db('attendance_devices').insert(columns);
  const device = toDevice({ id: Number(id), ...columns });
  return { device, token: signDeviceToken(key, { deviceId: device.id, tokenId, issuedAt: context.now, expiresAt }) };
}

/** The devices not deleted, oldest first. */
export async function listDevices(db: Db): Promise<Device[]> {
  const rows = (await db('attendance_devices').whereNull('revoked_at').orderBy('id')) as Array<Record<string, unknown>>;
  return rows.map(toDevice);
}

/** A device not deleted, or undefined. */
export async function findDevice(db: Db, id: number): Promise<Device | undefined> {
  const row = (await db('attendance_devices').where({ id }).whereNull('revoked_at').first()) as Record<string, unknown> | undefined;
  return row && toDevice(row);
}

/** The device whose token has this id (revoked ones too: authentication says why it refuses). */
export async function findDeviceByToken(db: Db, tokenId: string): Promise<Device | undefined> {
  const row = (await db('attendance_devices').where({ token_id: tokenId }).first()) as Record<string, unknown> | undefined;
  return row && toDevice(row);
}

/** Deletes a device: its token stops working at once; the row stays for its punch logs. False if there is none. */
export async function revokeDevice(db: Db, id: number, now: Date): Promise<boolean> {
  const changed = await db('attendance_devices')
    .where({ id })
    .whereNull('revoked_at')
    .update({ revoked_at: toSqlDateTime(now), updated_at: toSqlDateTime(now) });
  return changed > 0;
}

export async function touchDevice(db: Db, id: number, now: Date): Promise<void> {
  await db('attendance_devices')
    .where({ id })
    .update({ last_used_at: toSqlDateTime(now) });
}

/**
 * Locks the device's row until the transaction ends: uploads of one device run one after
 * another, so that a re-upload racing its first upload sees the entries that one recorded.
 */
export async function lockDevice(trx: Db, id: number): Promise<void> {
  await trx('attendance_devices').where({ id }).forUpdate().first('id');
}
