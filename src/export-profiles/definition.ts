import { z } from 'zod';
import type { FieldError } from '../errors';

// What an export profile is (CONTRACT 6.6, docs/pay-periods.md "Export profiles"): its shape, the
// column sources, the checks a profile must pass before it is stored, and the built-in templates.
// Pure: no database, no clock.

/** The classification codes a timesheet has today (leave and holiday codes come with 6.8). */
export const CODES = ['REG', 'OT', 'DT'] as const;
export type Code = (typeof CODES)[number];

/**
 * The codes of paid leave and holidays (CONTRACT 6.8, docs/leave.md): PTO (a paid leave type's
 * default) and HOL always; a leave type's own code once a type has it.
 */
export const LEAVE_CODES = ['PTO', 'HOL'] as const;

/** Sources any column may have. */
export const COMMON_SOURCES = [
  'payroll_id',
  'employee_id',
  'id',
  'first_name',
  'last_name',
  'full_name',
  'department',
  'job_title',
  'pay_grade',
  'pay_group',
  'period_start',
  'period_end',
  'timesheet_status',
] as const;
/** Sources of the long layout only: one row per employee, date and code. */
export const LONG_SOURCES = ['date', 'code', 'hours'] as const;
/** Sources of the wide layout only (besides `hours:<CODE>`): one row per employee and period. */
export const WIDE_SOURCES = ['total_hours'] as const;

export type Layout = 'long' | 'wide';
export type HoursFormat = 'decimal' | 'hh:mm';
export type Delimiter = ',' | ';' | '\t';

export interface ProfileColumn {
  header: string;
  value: string;
}

/** What a profile says about its file, as stored (export_profiles.definition) and answered. */
export interface ProfileDefinition {
  layout: Layout;
  columns: ProfileColumn[];
  codes: Partial<Record<string, string>>;
  hours_format: HoursFormat;
  decimals: number;
  delimiter: Delimiter;
  include_zero: boolean;
  constants: Record<string, string>;
  filename: string;
}

/** A profile in the read shape, and the version its export's ETag names. */
export interface ExportProfile extends ProfileDefinition {
  id: string;
  name: string;
  template: boolean;
  /** Counts the profile's changes (a template's: the templates' release, TEMPLATES_VERSION). */
  version: number;
}

export const DEFAULT_FILENAME = 'pay-period-{start}.csv';
export const MAX_COLUMNS = 50;
export const MAX_CONSTANTS = 20;
const CONSTANT_NAME = /^[a-z][a-z0-9_]{0,49}$/;
/** A file name pattern: letters, digits, dot, dash, underscore, space and the three placeholders. */
const FILENAME_PATTERN = /^(?:[A-Za-z0-9._ -]|\{start\}|\{end\}|\{group\})+$/;

const text = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, { error: `must be at most ${max} characters` })
    .refine((value) => ![...value].some((char) => char.charCodeAt(0) < 32 || char.charCodeAt(0) === 127), {
      error: 'must not hold control characters',
    });

/** The fields of a profile body; POST needs `name` and (without a template) `layout` and `columns`. */
export const profileFields = {
  name: text(100)
    .trim()
    .min(1, { error: 'must not be empty' })
    .meta({ description: 'Unique among the profiles (409 `duplicate`)', example: 'ADP, weekly staff' }),
  layout: z
    .enum(['long', 'wide'], { error: 'must be long or wide' })
    .meta({ description: '`long`: one row per employee, date and code; `wide`: one row per employee and period' }),
  columns: z
    .array(
      z.strictObject({
        header: text(100).meta({ description: 'The header cell', example: 'File #' }),
        value: z.string({ error: 'must be a string' }).max(60, { error: 'must be at most 60 characters' }).meta({
          description:
            'The source: payroll_id, employee_id, id, first_name, last_name, full_name, department, job_title, pay_grade, pay_group, period_start, period_end, timesheet_status, constant:<name>; long also date, code, hours; wide also hours:<CODE>, total_hours',
          example: 'payroll_id',
        }),
      }),
      { error: 'must be a list of {header, value}' },
    )
    .min(1, { error: 'must name at least one column' })
    .max(MAX_COLUMNS, { error: `must name at most ${MAX_COLUMNS} columns` }),
  codes: z
    .record(z.string(), text(50).trim().min(1, { error: 'must not be empty' }), { error: 'must be an object of code names' })
    .meta({ description: 'Names the codes REG, OT and DT in the file; unnamed codes keep their name', example: { OT: 'Overtime' } }),
  hours_format: z
    .enum(['decimal', 'hh:mm'], { error: 'must be decimal or hh:mm' })
    .meta({ description: '`hh:mm` writes 8:30 for 8.5 hours (whole minutes)' }),
  decimals: z
    .number({ error: 'must be a whole number from 0 to 4' })
    .int({ error: 'must be a whole number from 0 to 4' })
    .min(0, { error: 'must be a whole number from 0 to 4' })
    .max(4, { error: 'must be a whole number from 0 to 4' })
    .meta({ description: 'Decimals of decimal hours (hh:mm ignores it)' }),
  delimiter: z.enum([',', ';', '\t'], { error: 'must be ",", ";" or a tab' }),
  include_zero: z.boolean({ error: 'must be true or false' }).meta({ description: 'Also rows whose hours round to zero' }),
  constants: z
    .record(z.string(), text(200), { error: 'must be an object of texts' })
    .meta({ description: 'Texts the columns `constant:<name>` write', example: { co_code: 'X7K', batch_id: '4500' } }),
  filename: text(200).meta({
    description: 'The download name; may use {start}, {end} and {group} (1 until pay groups exist)',
    example: 'PR-{start}.csv',
  }),
};

/** What POST and PUT may send besides the profile's fields. */
const FIELD_NAMES = Object.keys(profileFields) as Array<keyof typeof profileFields>;

/** The profile's defaults where neither the body nor a template gives a value. */
const DEFAULTS: Omit<ProfileDefinition, 'layout' | 'columns'> = {
  codes: {},
  hours_format: 'decimal',
  decimals: 2,
  delimiter: ',',
  include_zero: false,
  constants: {},
  filename: DEFAULT_FILENAME,
};

/** A template: a read-only profile, and the constants a profile made from it must give. */
export interface Template extends ExportProfile {
  needs: readonly string[];
  /** The vendor page its layout follows (docs/pay-periods.md cites it too). */
  source: string | null;
}

/** Part of every template's ETag: a release that changes a template's file changes it. */
export const TEMPLATES_VERSION = 1;

const template = (
  id: string,
  name: string,
  definition: Partial<ProfileDefinition> & Pick<ProfileDefinition, 'layout' | 'columns'>,
  needs: string[],
  source: string | null,
): Template => ({
  id,
  name,
  template: true,
  version: TEMPLATES_VERSION,
  ...DEFAULTS,
  ...definition,
  // A constant the template needs shows as "" until a profile made from it gives it.
  constants: { ...Object.fromEntries(needs.map((constant) => [constant, ''])), ...(definition.constants ?? {}) },
  needs,
  source,
});

/**
 * The built-in profiles. `default` is exactly the CSV of CONTRACT 6.3; the others follow each
 * vendor's published hours-import layout (docs/pay-periods.md names the pages).
 */
export const TEMPLATES: readonly Template[] = [
  template(
    'default',
    'Default (CONTRACT 6.3)',
    {
      layout: 'long',
      columns: [
        { header: 'employee_id', value: 'employee_id' },
        { header: 'employee', value: 'id' },
        { header: 'date', value: 'date' },
        { header: 'code', value: 'code' },
        { header: 'hours', value: 'hours' },
        { header: 'timesheet_status', value: 'timesheet_status' },
      ],
    },
    [],
    null,
  ),
  template(
    'gusto',
    'Gusto (CSV upload, hours)',
    {
      layout: 'wide',
      columns: [
        { header: 'first_name', value: 'first_name' },
        { header: 'last_name', value: 'last_name' },
        { header: 'gusto_employee_id', value: 'payroll_id' },
        { header: 'title', value: 'job_title' },
        { header: 'regular_hours', value: 'hours:REG' },
        { header: 'overtime_hours', value: 'hours:OT' },
        { header: 'double_overtime_hours', value: 'hours:DT' },
      ],
      filename: 'gusto-hours-{start}.csv',
    },
    [],
    'https://support.gusto.com/article/999914471000000/Run-payroll-with-CSV-upload',
  ),
  template(
    'adp-workforce-now',
    'ADP Workforce Now (paydata import)',
    {
      layout: 'wide',
      columns: [
        { header: 'Co Code', value: 'constant:co_code' },
        { header: 'Batch ID', value: 'constant:batch_id' },
        { header: 'File #', value: 'payroll_id' },
        { header: 'Reg Hours', value: 'hours:REG' },
        { header: 'O/T Hours', value: 'hours:OT' },
        { header: 'Hours 3 Code', value: 'constant:hours_3_code' },
        { header: 'Hours 3 Amount', value: 'hours:DT' },
      ],
      constants: { hours_3_code: 'D' },
      filename: 'adp-paydata-{start}.csv',
    },
    ['co_code', 'batch_id'],
    'https://apps.adp.com/en-US/apps/372723/automated-paydata-integration-for-adp-workforce-now/features',
  ),
  template(
    'quickbooks-online',
    'QuickBooks Online (time activities)',
    {
      layout: 'long',
      columns: [
        { header: 'TxnDate', value: 'date' },
        { header: 'NameOf', value: 'constant:name_of' },
        { header: 'EmployeeVendorRefName', value: 'full_name' },
        { header: 'PayrollItemRef', value: 'code' },
        { header: 'BillableStatus', value: 'constant:billable_status' },
        { header: 'Duration', value: 'hours' },
      ],
      codes: { REG: 'Regular Pay', OT: 'Overtime Pay', DT: 'Double Time Pay' },
      hours_format: 'hh:mm',
      constants: { name_of: 'Employee', billable_status: 'NotBillable' },
      filename: 'quickbooks-time-{start}.csv',
    },
    [],
    'https://support.zed-systems.com/kb/a375/how-to-import-timesheets-into-quickbooks-online-using-axis-online.aspx',
  ),
  template(
    'paychex-flex',
    'Paychex Flex (hours import)',
    {
      layout: 'long',
      columns: [
        { header: 'Client ID', value: 'constant:client_id' },
        { header: 'Worker ID', value: 'payroll_id' },
        { header: 'Pay Component', value: 'code' },
        { header: 'Hours', value: 'hours' },
        { header: 'Line Date', value: 'date' },
      ],
      codes: { REG: 'Regular', OT: 'Overtime', DT: 'Doubletime' },
      filename: 'paychex-{start}.csv',
    },
    ['client_id'],
    'https://myapps.paychex.com/pngHelp_static/helpHtml/Import_File_Setup.htm',
  ),
];

export function findTemplate(id: string): Template | undefined {
  return TEMPLATES.find((candidate) => candidate.id === id);
}

/** A template in the read shape (what it needs is in its empty constants). */
export function templateProfile({ needs: _needs, source: _source, ...profile }: Template): ExportProfile {
  return profile;
}

/**
 * The problems of a whole definition, each naming its field: a column's source that does not
 * exist, belongs to the other layout, names a code or constant the profile lacks; a code that is
 * not one; a constant's name; a file name pattern.
 */
export function definitionErrors(definition: ProfileDefinition, leaveTypeCodes: readonly string[] = []): FieldError[] {
  const errors: FieldError[] = [];
  const known = [...new Set<string>([...CODES, ...LEAVE_CODES, ...leaveTypeCodes])];
  definition.columns.forEach((column, index) => {
    const problem = sourceProblem(column.value, definition, known);
    if (problem) errors.push({ field: `columns.${index}.value`, message: problem });
  });
  for (const code of Object.keys(definition.codes)) {
    if (!known.includes(code)) errors.push({ field: `codes.${code}`, message: `is not a code (${known.join(', ')})` });
  }
  const constants = Object.keys(definition.constants);
  if (constants.length > MAX_CONSTANTS) errors.push({ field: 'constants', message: `must hold at most ${MAX_CONSTANTS} constants` });
  for (const name of constants) {
    if (!CONSTANT_NAME.test(name))
      errors.push({ field: `constants.${name}`, message: 'must be named in lower case letters, digits and _, starting with a letter' });
  }
  if (!FILENAME_PATTERN.test(definition.filename) || definition.filename.trim().startsWith('.'))
    errors.push({
      field: 'filename',
      message: 'may hold letters, digits, ".", "-", "_", spaces and {start}, {end}, {group}, and must not start with "."',
    });
  return errors;
}

function sourceProblem(value: string, definition: ProfileDefinition, known: readonly string[]): string | undefined {
  if ((COMMON_SOURCES as readonly string[]).includes(value)) return undefined;
  if (value.startsWith('constant:')) {
    const name = value.slice('constant:'.length);
    return Object.hasOwn(definition.constants, name) ? undefined : `names the constant ${name}, which constants lacks`;
  }
  if ((LONG_SOURCES as readonly string[]).includes(value))
    return definition.layout === 'long' ? undefined : `${value} is a source of the long layout, not of wide`;
  if ((WIDE_SOURCES as readonly string[]).includes(value) || value.startsWith('hours:')) {
    if (definition.layout !== 'wide') return `${value} is a source of the wide layout, not of long`;
    if (value === 'total_hours') return undefined;
    const code = value.slice('hours:'.length);
    return known.includes(code) ? undefined : `names the code ${code}, which is not defined (${known.join(', ')})`;
  }
  return `is not a column source`;
}

/** A body's profile fields, parsed one by one so that every bad field is named at once. */
export function parseProfileFields(
  body: Record<string, unknown>,
  ignored: readonly string[],
): { values: Partial<ProfileDefinition & { name: string }>; errors: FieldError[] } {
  const values: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const [field, raw] of Object.entries(body)) {
    if (ignored.includes(field)) continue;
    if (!(FIELD_NAMES as string[]).includes(field)) {
      errors.push({ field, message: 'is not a known field' });
      continue;
    }
    const result = profileFields[field as keyof typeof profileFields].safeParse(raw);
    if (result.success) values[field] = result.data;
    else
      for (const issue of result.error.issues) errors.push({ field: [field, ...issue.path.map(String)].join('.'), message: issue.message });
  }
  return { values: values as Partial<ProfileDefinition & { name: string }>, errors };
}

/** The definition a body gives on its own (no template): layout and columns required. */
export function definitionOf(values: Partial<ProfileDefinition>, errors: FieldError[]): ProfileDefinition {
  for (const field of ['layout', 'columns'] as const) {
    const named = errors.some((error) => error.field === field || error.field.startsWith(`${field}.`));
    if (values[field] === undefined && !named) errors.push({ field, message: 'is required' });
  }
  return { ...DEFAULTS, layout: 'long', columns: [], ...values };
}

/**
 * The definition of a profile made from `template`: the body's fields replace the template's,
 * its constants are added to the template's; every constant the template needs must be given.
 */
export function definitionFromTemplate(template: Template, values: Partial<ProfileDefinition>, errors: FieldError[]): ProfileDefinition {
  const { needs, source: _source, id: _id, name: _name, template: _template, version: _version, ...base } = template;
  const constants = { ...base.constants, ...(values.constants ?? {}) };
  for (const constant of needs) {
    if (!constants[constant]) errors.push({ field: `constants.${constant}`, message: `is needed by the template ${template.id}` });
  }
  return { ...base, ...values, constants };
}

/** The file name of a period's export in this profile: its pattern filled in, then made safe for a header. */
export function exportFilename(pattern: string, period: { start: string; end: string }, group: string): string {
  const filled = pattern
    .replace(/\{start\}/g, period.start)
    .replace(/\{end\}/g, period.end)
    .replace(/\{group\}/g, group);
  const safe = filled.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '');
  return safe === '' ? `pay-period-${period.start}.csv` : safe;
}
