export const ROLES = ['admin', 'manager', 'employee'] as const;
export type Role = (typeof ROLES)[number];

/** Who is making a request: the user behind a valid bearer token. */
export interface Caller {
  userId: number;
  username: string;
  role: Role;
  /** The employee record linked to the user, if any. */
  employeeId: number | null;
  tokenId: string;
}

/** An attendance terminal behind a device token (a request has then no Caller). */
export interface DeviceCaller {
  id: number;
  name: string;
  /** The IANA time zone its punches are read in. */
  timezone: string;
}
