import { definitionErrors, exportFilename, findTemplate, type ProfileDefinition } from '../../src/export-profiles/definition';
import { allocateUnits, csvCell, formatUnits, longRows, profileWriter, wideRow } from '../../src/export-profiles/render';

// The pure part of export profiles (docs/pay-periods.md, "Export profiles"): rounding that adds
// up, cells, and the checks a definition must pass.

const TWENTY_MINUTES = 1200;

describe('allocateUnits (largest remainder)', () => {
  it('gives three 20-minute rows 0.34, 0.33 and 0.33: the earliest takes the tie', () => {
    expect(allocateUnits([TWENTY_MINUTES, TWENTY_MINUTES, TWENTY_MINUTES], 100)).toEqual([34, 33, 33]);
  });

  it('gives the extra unit to the largest remainder, and adds up to the rounded total', () => {
    // 0.2 h, 0.25 h (remainder 0.5 of a hundredth... exact), 0.3125 h: 0.7625 h, 76.25 -> 76.
    expect(allocateUnits([720, 900, 1125], 100)).toEqual([20, 25, 31]);
    // 10 s + 10 s + 20 s = 40 s = 1.11 hundredths -> 1, to the largest remainder.
    expect(allocateUnits([10, 10, 20], 100)).toEqual([0, 0, 1]);
  });

  it('counts minutes for hh:mm: 30 s three times is 1.5 min, rounded half up to 2', () => {
    expect(allocateUnits([30, 30, 30], 60)).toEqual([1, 1, 0]);
  });
});

describe('formatUnits', () => {
  it.each([
    [850, { hours_format: 'decimal', decimals: 2 }, '8.50'],
    [85, { hours_format: 'decimal', decimals: 1 }, '8.5'],
    [8, { hours_format: 'decimal', decimals: 0 }, '8'],
    [3, { hours_format: 'decimal', decimals: 4 }, '0.0003'],
    [510, { hours_format: 'hh:mm', decimals: 2 }, '8:30'],
    [5, { hours_format: 'hh:mm', decimals: 2 }, '0:05'],
  ] as const)('writes %s units as %j says: %s', (units, format, text) => {
    expect(formatUnits(units, format)).toBe(text);
  });
});

describe('csvCell', () => {
  it('quotes what holds the delimiter, a quote, CR or LF, and prefixes formula starts', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('a,b', ';')).toBe('a,b');
    expect(csvCell('a;b', ';')).toBe('"a;b"');
    expect(csvCell('a\tb', '\t')).toBe('"a\tb"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    for (const start of ['=', '+', '-', '@', '\t', '\r'])
      expect(csvCell(`${start}1`).startsWith(`'`) || csvCell(`${start}1`).startsWith(`"'`)).toBe(true);
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('Zoë')).toBe('Zoë');
  });
});

describe('rows', () => {
  const day = (date: string, regular: number, overtime = 0, double_time = 0) => ({ date, regular, overtime, double_time });
  const decimal = { hours_format: 'decimal', decimals: 2, include_zero: false } as const;

  it('leaves out a long row that rounds to zero unless include_zero', () => {
    expect(longRows([day('2026-11-05', 10)], decimal)).toEqual([]);
    expect(longRows([day('2026-11-05', 10)], { ...decimal, include_zero: true })).toEqual([{ date: '2026-11-05', code: 'REG', units: 0 }]);
  });

  it('rounds a wide row per code from the exact sums; no row for no worked time', () => {
    expect(wideRow([day('2026-11-02', TWENTY_MINUTES), day('2026-11-03', TWENTY_MINUTES, 36)], decimal)).toEqual({ REG: 67, OT: 1, DT: 0 });
    expect(wideRow([], { ...decimal, include_zero: true })).toBeUndefined();
  });

  it('writes a tab-delimited wide file with total_hours the sum of the row', () => {
    const definition: ProfileDefinition = {
      layout: 'wide',
      columns: [
        { header: 'Name', value: 'full_name' },
        { header: 'REG', value: 'hours:REG' },
        { header: 'OT', value: 'hours:OT' },
        { header: 'Total', value: 'total_hours' },
        { header: 'Group', value: 'pay_group' },
      ],
      codes: {},
      hours_format: 'decimal',
      decimals: 2,
      delimiter: '\t',
      include_zero: false,
      constants: {},
      filename: 'x.csv',
    };
    const writer = profileWriter(definition, { start: '2026-11-01', end: '2026-11-30', group: 'Default' });
    const employee = {
      id: 7,
      code: 'E7',
      payroll_id: null,
      first_name: 'Ann',
      last_name: 'Tab\tby',
      department: null,
      job_title: null,
      pay_grade: null,
    };

    expect(writer.header).toBe('Name\tREG\tOT\tTotal\tGroup\r\n');
    expect(writer.employeeLines(employee, 'open', [day('2026-11-02', 8 * 3600, 1800)])).toBe(
      '"Ann Tab\tby"\t8.00\t0.50\t8.50\tDefault\r\n',
    );
  });
});

describe('definitions', () => {
  it('accepts every template as it is', () => {
    for (const id of ['default', 'gusto', 'adp-workforce-now', 'quickbooks-online', 'paychex-flex']) {
      const template = findTemplate(id)!;
      expect(definitionErrors({ ...template, constants: { ...template.constants, co_code: 'X', batch_id: '1', client_id: '1' } })).toEqual(
        [],
      );
    }
  });

  it('fills and sanitises the file name', () => {
    expect(exportFilename('pay {start}..{end} "g{group}".csv', { start: '2026-11-01', end: '2026-11-30' }, '1')).toBe(
      'pay_2026-11-01..2026-11-30__g1_.csv',
    );
    expect(exportFilename('...', { start: '2026-11-01', end: '2026-11-30' }, '1')).toBe('pay-period-2026-11-01.csv');
  });
});
