import { fingerprintOf, type LedgerRow, readLedger, writeLedger } from './ledger';
import { type ImportContext, looseName, quoted, textOrNull } from './report';
import type { SourceRow } from './icehrm-source';

/**
 * Nationalities are read-only here and carry IceHrm's numbering (migration 0012): each IceHrm row
 * is checked against the row of the same id. Returns the ids employees may keep; an id that
 * names another nationality here (a customised IceHrm list) is reported, and employees with it
 * are imported without a nationality.
 */
export async function checkNationalities(context: ImportContext, sourceRows: SourceRow[]): Promise<Set<number>> {
  const { report } = context;
  const counts = report.counts('nationalities');
  const here = new Map(
    ((await context.db('nationalities').select('id', 'name')) as Array<{ id: number; name: string }>).map((row) => [
      Number(row.id),
      row.name,
    ]),
  );
  const usable = new Set<number>();
  for (const row of sourceRows) {
    counts.read++;
    const id = Number(row.id);
    const name = here.get(id);
    if (name !== undefined && looseName(name) === looseName(row.name)) {
      counts.unchanged++;
      usable.add(id);
    } else {
      const differs = name === undefined ? 'this server has no nationality with that id' : `this server's ${id} is ${quoted(name)}`;
      report.reject(
        'nationalities',
        `nationality ${id} ${quoted(row.name)}: ${differs} (nationalities follow IceHrm's standard list here); employees with it get no nationality`,
      );
    }
  }
  context.progress.tableDone('nationalities', counts);
  return usable;
}

/**
 * Provinces carry IceHrm's numbering too, and admins may add to them: an IceHrm province this
 * server lacks is added with its id; one whose id names another province here is reported.
 * Returns each usable province's country.
 */
export async function importProvinces(context: ImportContext, sourceRows: SourceRow[]): Promise<Map<number, string>> {
  const { db, report } = context;
  const counts = report.counts('provinces');
  const rows = (await db('provinces').select('id', 'country_code', 'name')) as Array<{ id: number; country_code: string; name: string }>;
  const here = new Map(rows.map((row) => [Number(row.id), row]));
  const taken = new Set(rows.map((row) => `${row.country_code}|${looseName(row.name)}`));
  const countries = new Set(((await db('countries').select('code')) as Array<{ code: string }>).map((row) => row.code));
  const ledger = await readLedger(db, 'province');
  const usable = new Map<number, string>();
  const added: Array<Record<string, unknown>> = [];
  const ledgerRows: LedgerRow[] = [];
  for (const row of sourceRows) {
    counts.read++;
    const id = Number(row.id);
    const name = textOrNull(row.name)?.trim() ?? '';
    const country = String(row.country ?? '').toUpperCase();
    const what = `province ${id} ${quoted(name)}`;
    const existing = here.get(id);
    if (existing) {
      if (existing.country_code === country && looseName(existing.name) === looseName(name)) {
        counts.unchanged++;
        usable.set(id, country);
      } else {
        report.reject(
          'provinces',
          `${what} (${country}): this server's ${id} is ${quoted(existing.name)} (${existing.country_code}); employees with it get no province`,
        );
      }
      continue;
    }
    if (!name || name.length > 100) {
      report.reject('provinces', `${what}: ${name ? 'name longer than 100 characters' : 'has no name'}`);
      continue;
    }
    if (!countries.has(country)) {
      report.reject('provinces', `${what}: country ${quoted(country)} is not a known ISO 3166-1 code`);
      continue;
    }
    if (taken.has(`${country}|${looseName(name)}`)) {
      report.reject('provinces', `${what}: ${country} already has a province of that name here, under another id`);
      continue;
    }
    taken.add(`${country}|${looseName(name)}`);
    const columns = { id, country_code: country, code: textOrNull(row.code)?.trim().slice(0, 10) ?? null, name };
    added.push(columns);
    if (!ledger.has(id)) ledgerRows.push({ kind: 'province', sourceId: id, targetId: id, fingerprint: fingerprintOf(columns) });
    counts.added++;
    usable.set(id, country);
  }
  if (!context.dryRun && added.length > 0) {
    await db.transaction(async (trx) => {
      for (let start = 0; start < added.length; start += context.batchSize)
        await trx('provinces').insert(added.slice(start, start + context.batchSize));
      await writeLedger(trx, ledgerRows, context.nowSql);
    });
  }
  context.progress.tableDone('provinces', counts);
  return usable;
}
