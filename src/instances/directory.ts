import type { Clock } from '../clock';
import type { DatabaseServer } from '../config';
import { type Db, openDatabase, type DatabaseConfig } from '../db/connect';
import { ServiceUnavailableError } from '../errors';
import { type Instance, openInstance } from './instance';
import { findRegisteredInstance, instanceDatabaseConfig, isInstanceName, type RegisteredInstance } from './registry';
import type { InstanceLease, InstanceSource } from './source';

/** How long a name found missing from the registry is answered 404 without asking it again. */
export const MISS_CACHE_MS = 10_000;
/** The most missing names remembered; the oldest are forgotten first. */
const MAX_MISSES = 10_000;

/**
 * How often a known instance's registry row is read again while it receives requests: a move to
 * another server (or the start of one) is noticed within this long by every running process.
 */
export const REGISTRY_CHECK_MS = 1000;

/** Connections one open MySQL instance may use: a request and an overlapping one. */
const MYSQL_CONNECTIONS_PER_INSTANCE = 2;

export interface InstanceDirectoryOptions {
  /** The control database (the registry), already migrated. */
  control: Db;
  controlConfig: DatabaseConfig;
  /** DATABASE_SERVERS: where instances registered on other servers than `default` are. */
  servers?: readonly DatabaseServer[];
  clock: Clock;
  /** The most connections this process holds to instance databases, all instances together. */
  maxConnections: number;
  /** An instance's connections are closed after this long unused. */
  idleTimeoutMs: number;
  /** The most instances kept in memory (keys, settings and name caches), open or not. */
  maxKnown?: number;
  /** How long a request waits for a free connection slot before it answers 503. */
  slotTimeoutMs?: number;
  /** MySQL: list reads on instance databases are stopped after this long (LIST_QUERY_TIMEOUT_MS). */
  listStatementTimeoutMs?: number;
}

/** One instance database's pool and its claim on a slot. */
interface Slot {
  db: Db;
  /** Holds one of the `maxOpen` slots; its pool may open connections. */
  connected: boolean;
  /** Its pool is being destroyed; the slot is still counted until that ends. */
  closing: Promise<void> | undefined;
  /** Its pool was destroyed and must be initialised again before use. */
  poolDestroyed: boolean;
  /** A request is waiting for a slot for it; others for the same instance wait on the same. */
  connecting?: Promise<void>;
}

interface Entry extends Slot {
  name: string;
  instance: Instance;
  /** Requests holding the instance: it is never closed while > 0. */
  leases: number;
  /** Its registry row as last read, and when (Date.now()). */
  registered: RegisteredInstance;
  checkedAt: number;
  /** Replaced by a newer entry (the instance moved): closed once its last lease ends. */
  retired: boolean;
}

/**
 * Cloud mode's instances (docs/deployment.md): resolves a name through the registry in the control
 * database and opens that instance's database on first use.
 *
 * Connections stay bounded however many instances receive traffic: each open instance has a
 * small pool (2 connections on MySQL, 1 on SQLite), at most `maxConnections / that` instances
 * are open at once, and the least recently used idle one is closed to make room. A request that
 * finds every slot busy waits for one (503 after `slotTimeoutMs`). Closed instances stay known
 * (their signing key and caches) so reopening costs only new connections, not a migration check.
 */
export class InstanceDirectory implements InstanceSource {
  /** Known instances, least recently used first (a Map keeps insertion order). */
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<Entry | undefined>>();
  private readonly checking = new Map<string, Promise<Entry | undefined>>();
  /** Entries replaced after a move, until their last request is done. */
  private readonly retired = new Set<Entry>();
  /** Names the registry did not have, until when that answer holds (ms). */
  private readonly misses = new Map<string, number>();
  private readonly waiters = new Set<() => void>();
  private readonly perInstance: number;
  readonly maxOpen: number;
  private readonly maxKnown: number;
  private readonly slotTimeoutMs: number;
  /** Slots taken: connected entries plus those still closing. */
  private slotsInUse = 0;

  constructor(private readonly options: InstanceDirectoryOptions) {
    this.perInstance = options.controlConfig.client === 'mysql' ? MYSQL_CONNECTIONS_PER_INSTANCE : 1;
    this.maxOpen = Math.max(1, Math.floor(options.maxConnections / this.perInstance));
    this.maxKnown = Math.max(this.maxOpen, options.maxKnown ?? 1000);
    this.slotTimeoutMs = options.slotTimeoutMs ?? 10_000;
  }

  async acquire(name: string | undefined): Promise<InstanceLease | undefined> {
    // The name rule is checked before any lookup: /api/<anything>/ never reaches the database.
    if (name === undefined || !isInstanceName(name)) return undefined;
    if (this.recentlyMissing(name)) return undefined;
    const known = this.entries.get(name);
    const entry = known ? await this.current(known) : await this.load(name);
    if (!entry) return undefined;
    entry.leases += 1;
    try {
      await this.connect(entry);
    } catch (error) {
      this.release(entry);
      throw error;
    }
    this.touch(entry);
    let released = false;
    return {
      instance: entry.instance,
      writesPaused: entry.registered.movingSince !== null,
      release: () => {
        if (released) return;
        released = true;
        this.release(entry);
      },
    };
  }

  needsLookup(name: string): boolean {
    return isInstanceName(name) && !this.entries.has(name) && !this.recentlyMissing(name);
  }

  async checkReady(): Promise<void> {
    await this.options.control.raw('select 1');
  }

  /** Counts, for tests. */
  stats(): { known: number; open: number; slotsInUse: number; maxOpen: number } {
    const open = [...this.entries.values()].filter((entry) => entry.connected).length;
    return { known: this.entries.size, open, slotsInUse: this.slotsInUse, maxOpen: this.maxOpen };
  }

  /** Closes every instance database (at shutdown; the control database is the caller's). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.loading.values()]);
    await Promise.all([...this.entries.values(), ...this.retired].map((entry) => entry.closing ?? entry.db.destroy()));
    this.entries.clear();
    this.retired.clear();
  }

  /**
   * The entry, its registry row read again when older than REGISTRY_CHECK_MS. An instance moved
   * to another server (or another database) gets a new entry; the old one is retired, and its
   * pool closed once the requests still holding it are done. One check per name at a time.
   */
  private current(entry: Entry): Promise<Entry | undefined> | Entry {
    if (Date.now() - entry.checkedAt < REGISTRY_CHECK_MS) return entry;
    let checking = this.checking.get(entry.name);
    if (!checking) {
      checking = this.recheck(entry).finally(() => this.checking.delete(entry.name));
      this.checking.set(entry.name, checking);
    }
    return checking;
  }

  private async recheck(entry: Entry): Promise<Entry | undefined> {
    let registered: RegisteredInstance | undefined;
    try {
      registered = await findRegisteredInstance(this.options.control, entry.name);
    } catch {
      // The control database does not answer: an open instance goes on being served where it
      // was last seen (a move needs the control database too), and is checked again later.
      entry.checkedAt = Date.now();
      return entry;
    }
    if (registered && registered.server === entry.registered.server && registered.databaseName === entry.registered.databaseName) {
      entry.registered = registered;
      entry.checkedAt = Date.now();
      return entry;
    }
    this.retire(entry);
    if (!registered) {
      this.rememberMissing(entry.name);
      return undefined;
    }
    return this.load(entry.name);
  }

  private retire(entry: Entry): void {
    if (this.entries.get(entry.name) === entry) this.entries.delete(entry.name);
    entry.retired = true;
    this.retired.add(entry);
    if (entry.leases === 0) this.closeRetired(entry);
  }

  /** Registry lookup and first open, shared by concurrent first requests to one instance. */
  private load(name: string): Promise<Entry | undefined> {
    let loading = this.loading.get(name);
    if (!loading) {
      loading = this.open(name).finally(() => this.loading.delete(name));
      this.loading.set(name, loading);
    }
    return loading;
  }

  private async open(name: string): Promise<Entry | undefined> {
    const registered = await findRegisteredInstance(this.options.control, name);
    if (!registered) {
      this.rememberMissing(name);
      return undefined;
    }
    const config = instanceDatabaseConfig(this.options.controlConfig, registered.databaseName, {
      name: registered.server,
      configured: this.options.servers ?? [],
    });
    const db = openDatabase(config, {
      poolMax: this.perInstance,
      idleTimeoutMs: this.options.idleTimeoutMs,
      listStatementTimeoutMs: this.options.listStatementTimeoutMs,
    });
    // Opening runs queries (migrations, the signing secret), so it needs a slot like a request.
    const slot: Slot = { db, connected: false, closing: undefined, poolDestroyed: false };
    let instance: Instance;
    try {
      await this.connect(slot);
      instance = await openInstance(db, { name, clock: this.options.clock });
    } catch (error) {
      if (slot.connected) this.freeSlot(slot);
      await db.destroy();
      throw error;
    }
    const entry: Entry = { ...slot, name, instance, leases: 0, registered, checkedAt: Date.now(), retired: false };
    this.entries.set(name, entry);
    this.forgetBeyondMaxKnown();
    return entry;
  }

  /**
   * Unknown names cost a registry query each: a name found missing is answered 404 from memory
   * for MISS_CACHE_MS (an instance created meanwhile is found after that).
   */
  private rememberMissing(name: string): void {
    this.misses.delete(name);
    this.misses.set(name, this.options.clock.now().getTime() + MISS_CACHE_MS);
    if (this.misses.size > MAX_MISSES) {
      const oldest = this.misses.keys().next().value;
      if (oldest !== undefined) this.misses.delete(oldest);
    }
  }

  private recentlyMissing(name: string): boolean {
    const until = this.misses.get(name);
    if (until === undefined) return false;
    if (until > this.options.clock.now().getTime()) return true;
    this.misses.delete(name);
    return false;
  }

  /**
   * Takes a slot (for an entry pinned by the caller), closing idle instances to make room.
   * Concurrent requests for one instance share one attempt, so they queue once, not each.
   */
  private connect(slot: Slot): Promise<void> {
    if (slot.connected) return Promise.resolve();
    slot.connecting ??= this.takeSlot(slot).finally(() => {
      slot.connecting = undefined;
    });
    return slot.connecting;
  }

  private async takeSlot(slot: Slot): Promise<void> {
    const deadline = Date.now() + this.slotTimeoutMs;
    while (!slot.connected) {
      if (slot.closing) {
        await slot.closing;
      } else if (this.slotsInUse < this.maxOpen) {
        this.slotsInUse += 1;
        this.claim(slot);
      } else {
        const idle = this.leastRecentlyUsedIdle();
        if (!idle) {
          await this.waitForSlot(deadline);
          continue;
        }
        // The slot passes straight from the closed instance to this one: no other request can
        // take it meanwhile and send this one back to the queue.
        await this.disconnect(idle, { handOver: true });
        this.claim(slot);
      }
    }
  }

  /** The slot is this instance's now: its pool may open connections again. */
  private claim(slot: Slot): void {
    slot.connected = true;
    if (slot.poolDestroyed) {
      slot.db.initialize();
      slot.poolDestroyed = false;
    }
  }

  private release(entry: Entry): void {
    entry.leases -= 1;
    if (entry.leases > 0) return;
    if (entry.retired) this.closeRetired(entry);
    this.wakeAll();
  }

  private closeRetired(entry: Entry): void {
    this.retired.delete(entry);
    if (entry.connected) void this.disconnect(entry);
  }

  private touch(entry: Entry): void {
    if (entry.retired) return;
    this.entries.delete(entry.name);
    this.entries.set(entry.name, entry);
  }

  private leastRecentlyUsedIdle(): Entry | undefined {
    for (const entry of this.entries.values()) if (entry.connected && entry.leases === 0) return entry;
    return undefined;
  }

  /**
   * Destroys the instance's pool. Its slot is counted until the connections are closed, then
   * freed, or kept for the caller (`handOver`).
   */
  private disconnect(slot: Slot, { handOver = false } = {}): Promise<void> {
    slot.connected = false;
    slot.poolDestroyed = true;
    slot.closing = slot.db
      .destroy()
      .catch(() => undefined)
      .finally(() => {
        slot.closing = undefined;
        if (handOver) return;
        this.slotsInUse -= 1;
        this.wakeAll();
      });
    return slot.closing;
  }

  private freeSlot(slot: Slot): void {
    slot.connected = false;
    this.slotsInUse -= 1;
    this.wakeAll();
  }

  private waitForSlot(deadline: number): Promise<void> {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      return Promise.reject(new ServiceUnavailableError({ detail: 'The server is busy; try again shortly' }));
    }
    return new Promise((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(new ServiceUnavailableError({ detail: 'The server is busy; try again shortly' }));
      }, remaining);
      this.waiters.add(wake);
    });
  }

  /**
   * Every waiter looks again: waking only one could pick one that cannot use what was freed
   * while another could, leaving it asleep until its deadline.
   */
  private wakeAll(): void {
    for (const wake of [...this.waiters]) wake();
  }

  /** Forgets the least recently used idle instances beyond `maxKnown` (their memory, and pool). */
  private forgetBeyondMaxKnown(): void {
    for (const entry of this.entries.values()) {
      if (this.entries.size <= this.maxKnown) return;
      if (entry.leases > 0 || entry.closing) continue;
      this.entries.delete(entry.name);
      if (entry.connected) void this.disconnect(entry);
    }
  }
}
