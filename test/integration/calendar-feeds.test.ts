import ICAL from 'ical.js';
import request from 'supertest';
import { foldLine, refold } from '../../src/calendar/ics';
import { asUser, setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createEmployee, createOrg } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { useFixture, useTestApp } from '../helpers/test-app';

// Calendar feeds (CONTRACT 6.7, docs/schedules.md): secret URLs, RFC 5545 text every test parses
// with ical.js, strong ETags, stable UIDs, SEQUENCE, CRLF and folding by octets.

function parse(text: string) {
  const calendar = new ICAL.Component(ICAL.parse(text));
  return calendar.getAllSubcomponents('vevent').map((event) => ({
    uid: event.getFirstPropertyValue('uid'),
    sequence: event.getFirstPropertyValue('sequence'),
    status: event.getFirstPropertyValue('status'),
    summary: event.getFirstPropertyValue('summary'),
    description: event.getFirstPropertyValue('description'),
    start: (event.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate().toISOString(),
    end: (event.getFirstPropertyValue('dtend') as ICAL.Time).toJSDate().toISOString(),
  }));
}

describe('folding calendar lines', () => {
  it('folds at 75 octets without splitting a character, and refolds whatever came folded', () => {
    const line = `DESCRIPTION:${'é'.repeat(60)}`;
    const folded = foldLine(line);
    for (const part of folded) expect(Buffer.byteLength(part)).toBeLessThanOrEqual(75);
    expect(folded.map((part, index) => (index === 0 ? part : part.slice(1))).join('')).toBe(line);
    expect(refold('A:1\nB:2\n 3\r\n')).toBe('A:1\r\nB:23\r\n');
  });
});

describe.each(testDialects())('calendar feeds on %s', (dialect) => {
  const t = useTestApp(dialect);
  const org = useFixture(() => createOrg(t));
  const admin = () => asUser(t, org.admin);
  const fetchFeed = (url: string) => request(t.app).get(new URL(url).pathname);

  beforeEach(() => setClock(t, '2026-06-01T10:00:00.000Z'));

  it('serves the published shifts as events with UTC times, a stable UID, SEQUENCE and CANCELLED, CRLF and folded', async () => {
    const employee = await createEmployee(t, { timezone: 'Europe/Berlin' });
    const type = await admin().post('/shift-types', { name: `Früh ${'ü'.repeat(40)} ${dialect}`, start_time: '06:00', end_time: '14:00' });
    const kept = await admin().post('/shifts', {
      employee,
      shift_type: type.body.id,
      date: '2026-06-03',
      status: 'published',
      notes: 'Desk 4',
    });
    const cancelled = await admin().post('/shifts', {
      employee,
      start_local: '2026-06-04T22:00',
      end_local: '2026-06-05T06:00',
      status: 'published',
    });
    await admin().post('/shifts', { employee, start_local: '2026-06-06T08:00', end_local: '2026-06-06T16:00' });
    await admin().post('/shifts', { employee, start_local: '2026-09-10T08:00', end_local: '2026-09-10T16:00', status: 'published' });
    await admin().patch(`/shifts/${cancelled.body.id}`, { status: 'cancelled' });

    const created = await asUser(t, org.admin).post(`/employees/${employee}/calendar-feeds`);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      url: expect.stringMatching(/\/app\/api\/calendar\/[A-Za-z0-9_-]{43}\.ics$/),
      created_at: '2026-06-01T10:00:00.000Z',
    });
    const stored = await t
      .db('calendar_feeds')
      .where({ id: Number(created.body.id) })
      .first();
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(created.body.url).not.toContain(stored.token_hash);

    const res = await fetchFeed(created.body.url);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const text = res.text;
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/\n/);
    for (const line of text.split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(text).toMatch(/DTSTART:20260603T040000Z/);
    expect(parse(text)).toEqual([
      {
        uid: `shift-${kept.body.id}@hrm`,
        sequence: 1,
        status: 'CONFIRMED',
        summary: type.body.name,
        description: 'Desk 4',
        start: '2026-06-03T04:00:00.000Z',
        end: '2026-06-03T12:00:00.000Z',
      },
      {
        uid: `shift-${cancelled.body.id}@hrm`,
        sequence: 2,
        status: 'CANCELLED',
        summary: 'Shift',
        description: null,
        start: '2026-06-04T20:00:00.000Z',
        end: '2026-06-05T04:00:00.000Z',
      },
    ]);

    const tag = res.headers.etag as string;
    expect(tag).toMatch(/^"[^"]+"$/);
    const unchanged = await fetchFeed(created.body.url).set('If-None-Match', tag);
    expect(unchanged.status).toBe(304);
    await admin().patch(`/shifts/${kept.body.id}`, { notes: 'Desk 5' });
    const changed = await fetchFeed(created.body.url).set('If-None-Match', tag);
    expect(changed.status).toBe(200);
    expect(parse(changed.text)[0]).toMatchObject({ uid: `shift-${kept.body.id}@hrm`, sequence: 2, description: 'Desk 5' });
  });

  it('answers 404 alike for unknown and revoked tokens, and lists feeds without their URLs', async () => {
    const employee = org.report.employeeId!;
    const mine = await asUser(t, org.report).post(`/employees/${employee}/calendar-feeds`);
    expect(mine.status).toBe(201);
    const managers = await asUser(t, org.manager).post(`/employees/${employee}/calendar-feeds`);
    expect(managers.status).toBe(201);
    expectProblem(await asUser(t, org.outsider).post(`/employees/${employee}/calendar-feeds`), 404, 'not_found');
    const list = await asUser(t, org.report).get(`/employees/${employee}/calendar-feeds`);
    expect(list.body.data).toEqual([
      { id: mine.body.id, created_at: expect.any(String) },
      { id: managers.body.id, created_at: expect.any(String) },
    ]);
    expect(JSON.stringify(list.body)).not.toContain('.ics');
    expect((await fetchFeed(mine.body.url)).status).toBe(200);
    const revoked = await asUser(t, org.report).delete(`/employees/${employee}/calendar-feeds/${mine.body.id}`);
    expect(revoked.body).toEqual({ id: mine.body.id });
    const gone = await fetchFeed(mine.body.url);
    const unknown = await request(t.app).get(t.api(`/calendar/${'A'.repeat(43)}.ics`));
    expectProblem(gone, 404, 'not_found');
    expectProblem(unknown, 404, 'not_found');
    expect(gone.body.detail).toBe(unknown.body.detail);
  });

  it('stays behind the settings gate, shows nothing after termination, and dies with the employee', async () => {
    const employee = await createEmployee(t, { timezone: 'UTC', termination_date: '2026-06-10' });
    await admin().post('/shifts', { employee, start_local: '2026-06-09T08:00', end_local: '2026-06-09T16:00', status: 'published' });
    await admin().post('/shifts', { employee, start_local: '2026-06-10T08:00', end_local: '2026-06-10T16:00', status: 'published' });
    const feed = await admin().post(`/employees/${employee}/calendar-feeds`);
    // The shift after the termination date, written directly: the API refuses to make one.
    await t.db('shifts').insert({
      ...(await t.db('shifts').where({ employee_id: employee }).first()),
      id: undefined,
      date: '2026-06-11',
      start_local: '2026-06-11T08:00',
      end_local: '2026-06-11T16:00',
      start_utc: '2026-06-11 08:00:00',
      end_utc: '2026-06-11 16:00:00',
    });
    const res = await fetchFeed(feed.body.url);
    expect(parse(res.text).map((event) => event.start)).toEqual(['2026-06-09T08:00:00.000Z', '2026-06-10T08:00:00.000Z']);
    await t.setApiEnabled(false);
    try {
      expectProblem(await fetchFeed(feed.body.url), 403, 'api_disabled');
    } finally {
      await t.setApiEnabled(true);
    }
    expect((await admin().delete(`/employees/${employee}`)).status).toBe(200);
    expectProblem(await fetchFeed(feed.body.url), 404, 'not_found');
    expect(await t.db('calendar_feeds').where({ employee_id: employee })).toEqual([]);
    // The shifts the deletion took with it are in the deletion feed.
    expect(await t.db('deleted_shifts').where({ employee_id: employee })).toHaveLength(3);
  });
});
