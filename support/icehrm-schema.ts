import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';

/**
 * The IceHrm tables `hrm import icehrm` reads, with the columns, types, defaults and keys of
 * IceHrm's published schema (core/scripts/icehrmdb.sql, and the v26 migrations that added the
 * attendance positions and addresses), written for the tests and the bench. Settings holds the
 * overtime settings the import carries into the pay-period settings; the leave tables are those of
 * its schema (core/scripts/icehrmdb.sql: LeaveTypes, LeavePeriods, WorkDays, HoliDays, EmployeeLeaves, EmployeeLeaveDays). Country and
 * CurrencyTypes are here because Province, Employees and PayGrades point at them.
 */
const TABLES = [
  `create table \`Country\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`code\` char(2) not null default '',
    \`namecap\` varchar(80) null default '',
    \`name\` varchar(80) not null default '',
    \`iso3\` char(3) default null,
    \`numcode\` smallint(6) default null,
    UNIQUE KEY \`code\` (\`code\`),
    primary key (\`id\`)
  ) engine=innodb default charset=utf8`,
  `create table \`Province\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`name\` varchar(40) not null default '',
    \`code\` char(2) not null default '',
    \`country\` char(2) not null default 'US',
    CONSTRAINT \`Fk_Province_Country\` FOREIGN KEY (\`country\`) REFERENCES \`Country\` (\`code\`),
    primary key (\`id\`)
  ) engine=innodb default charset=utf8`,
  `create table \`CurrencyTypes\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`code\` varchar(3) not null default '',
    \`name\` varchar(70) not null default '',
    primary key (\`id\`),
    UNIQUE KEY \`CurrencyTypes_code\` (\`code\`)
  ) engine=innodb default charset=utf8`,
  `create table \`PayGrades\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`name\` varchar(100) default null,
    \`currency\` varchar(3) not null,
    \`min_salary\` decimal(12,2) DEFAULT 0.00,
    \`max_salary\` decimal(12,2) DEFAULT 0.00,
    CONSTRAINT \`Fk_PayGrades_CurrencyTypes\` FOREIGN KEY (\`currency\`) REFERENCES \`CurrencyTypes\` (\`code\`),
    primary key (\`id\`)
  ) engine=innodb default charset=utf8`,
  `create table \`JobTitles\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`code\` varchar(10) not null default '',
    \`name\` varchar(100) default null,
    \`description\` varchar(200) default null,
    \`specification\` varchar(400) default null,
    primary key (\`id\`)
  ) engine=innodb default charset=utf8`,
  `create table \`EmploymentStatus\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`name\` varchar(100) default null,
    \`description\` varchar(400) default null,
    primary key (\`id\`)
  ) engine=innodb default charset=utf8`,
  `create table \`Nationality\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`name\` varchar(100) default null,
    primary key (\`id\`)
  ) engine=innodb default charset=utf8`,
  `create table \`CompanyStructures\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`title\` tinytext not null,
    \`description\` text not null,
    \`address\` text default NULL,
    \`type\` enum('Company','Head Office','Regional Office','Department','Unit','Sub Unit','Other') default NULL,
    \`country\` varchar(2) not null default '0',
    \`parent\` bigint(20) NULL,
    \`timezone\` varchar(100) not null default 'Europe/London',
    \`heads\` varchar(255) NULL default NULL,
    CONSTRAINT \`Fk_CompanyStructures_Own\` FOREIGN KEY (\`parent\`) REFERENCES \`CompanyStructures\` (\`id\`),
    primary key (\`id\`)
  ) engine=innodb default charset=utf8`,
  `create table \`Employees\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`employee_id\` varchar(50) default null,
    \`first_name\` varchar(100) default '' not null,
    \`middle_name\` varchar(100) default null,
    \`last_name\` varchar(100) default null,
    \`nationality\` bigint(20) default null,
    \`birthday\` date default NULL,
    \`gender\` enum('Male','Female') default NULL,
    \`marital_status\` enum('Married','Single','Divorced','Widowed','Other') default NULL,
    \`ssn_num\` varchar(100) default NULL,
    \`nic_num\` varchar(100) default NULL,
    \`other_id\` varchar(100) default NULL,
    \`driving_license\` varchar(100) default NULL,
    \`driving_license_exp_date\` date default NULL,
    \`employment_status\` bigint(20) default null,
    \`job_title\` bigint(20) default null,
    \`pay_grade\` bigint(20) null,
    \`work_station_id\` varchar(100) default NULL,
    \`address1\` varchar(100) default NULL,
    \`address2\` varchar(100) default NULL,
    \`city\` varchar(150) default NULL,
    \`country\` char(2) default null,
    \`province\` bigint(20) default null,
    \`postal_code\` varchar(20) default null,
    \`home_phone\` varchar(50) default null,
    \`mobile_phone\` varchar(50) default null,
    \`work_phone\` varchar(50) default null,
    \`work_email\` varchar(100) default null,
    \`private_email\` varchar(100) default null,
    \`joined_date\` date default null,
    \`confirmation_date\` date default null,
    \`supervisor\` bigint(20) default null,
    \`indirect_supervisors\` varchar(250) default null,
    \`department\` bigint(20) default null,
    \`custom1\` varchar(250) default null,
    \`custom2\` varchar(250) default null,
    \`termination_date\` date default null,
    \`notes\` text default null,
    \`status\` enum('Active','Terminated') default 'Active',
    \`ethnicity\` bigint(20) default null,
    \`immigration_status\` bigint(20) default null,
    \`approver1\` bigint(20) default null,
    \`approver2\` bigint(20) default null,
    \`approver3\` bigint(20) default null,
    CONSTRAINT \`Fk_Employee_Nationality\` FOREIGN KEY (\`nationality\`) REFERENCES \`Nationality\` (\`id\`) ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT \`Fk_Employee_JobTitle\` FOREIGN KEY (\`job_title\`) REFERENCES \`JobTitles\` (\`id\`) ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT \`Fk_Employee_EmploymentStatus\` FOREIGN KEY (\`employment_status\`) REFERENCES \`EmploymentStatus\` (\`id\`) ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT \`Fk_Employee_Country\` FOREIGN KEY (\`country\`) REFERENCES \`Country\` (\`code\`) ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT \`Fk_Employee_Province\` FOREIGN KEY (\`province\`) REFERENCES \`Province\` (\`id\`) ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT \`Fk_Employee_Supervisor\` FOREIGN KEY (\`supervisor\`) REFERENCES \`Employees\` (\`id\`) ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT \`Fk_Employee_CompanyStructures\` FOREIGN KEY (\`department\`) REFERENCES \`CompanyStructures\` (\`id\`) ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT \`Fk_Employee_PayGrades\` FOREIGN KEY (\`pay_grade\`) REFERENCES \`PayGrades\` (\`id\`) ON DELETE SET NULL ON UPDATE CASCADE,
    primary key (\`id\`),
    unique key \`employee_id\` (\`employee_id\`)
  ) engine=innodb default charset=utf8`,
  `create table \`Users\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`username\` varchar(100) default null,
    \`email\` varchar(100) default null,
    \`password\` varchar(100) default null,
    \`employee\` bigint(20) null,
    \`default_module\` bigint(20) null,
    \`user_level\` enum('Admin','Employee','Manager','Other') default NULL,
    \`user_roles\` text null,
    \`last_login\` datetime default NULL,
    \`last_update\` datetime default NULL,
    \`created\` datetime default NULL,
    \`login_hash\` varchar(64) default null,
    \`lang\` bigint(20) default null,
    CONSTRAINT \`Fk_User_Employee\` FOREIGN KEY (\`employee\`) REFERENCES \`Employees\` (\`id\`) ON DELETE SET NULL ON UPDATE CASCADE,
    primary key (\`id\`),
    unique key \`username\` (\`username\`),
    INDEX login_hash_index (\`login_hash\`)
  ) engine=innodb default charset=utf8`,
  `create table \`Attendance\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`employee\` bigint(20) NOT NULL,
    \`in_time\` datetime default NULL,
    \`out_time\` datetime default NULL,
    \`note\` varchar(500) default null,
    \`image_in\` longtext,
    \`image_out\` longtext,
    \`map_lat\` decimal(10,8) DEFAULT NULL,
    \`map_lng\` decimal(10,8) DEFAULT NULL,
    \`map_snapshot\` longtext,
    \`map_out_lat\` decimal(10,8) DEFAULT NULL,
    \`map_out_lng\` decimal(10,8) DEFAULT NULL,
    \`map_out_snapshot\` longtext,
    \`in_ip\` varchar(25) DEFAULT NULL,
    \`out_ip\` varchar(25) DEFAULT NULL,
    CONSTRAINT \`Fk_Attendance_Employee\` FOREIGN KEY (\`employee\`) REFERENCES \`Employees\` (\`id\`) ON DELETE CASCADE ON UPDATE CASCADE,
    KEY \`in_time\` (\`in_time\`),
    KEY \`out_time\` (\`out_time\`),
    KEY \`employee_in_time\` (\`employee\`,\`in_time\`),
    KEY \`employee_out_time\` (\`employee\`,\`out_time\`),
    primary key (\`id\`)
  ) engine=innodb default charset=utf8`,
  `create table \`LeaveTypes\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`name\` varchar(100) NOT NULL,
    \`supervisor_leave_assign\` enum('Yes','No') default 'Yes',
    \`employee_can_apply\` enum('Yes','No') default 'Yes',
    \`apply_beyond_current\` enum('Yes','No') default 'Yes',
    \`leave_accrue\` enum('No','Yes') default 'No',
    \`carried_forward\` enum('No','Yes') default 'No',
    \`default_per_year\` decimal(10,3) NOT NULL,
    \`carried_forward_percentage\` int(11) NULL default 0,
    \`carried_forward_leave_availability\` int(11) NULL default 365,
    \`propotionate_on_joined_date\` enum('No','Yes') default 'No',
    \`send_notification_emails\` enum('Yes','No') default 'Yes',
    \`leave_group\` bigint(20) NULL,
    \`leave_color\` varchar(10) NULL,
    \`max_carried_forward_amount\` int(11) NULL default 0,
    primary key (\`id\`),
    unique key (\`name\`)
  ) engine=innodb default charset=utf8`,
  `create table \`LeavePeriods\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`name\` varchar(100) NOT NULL,
    \`date_start\` date default NULL,
    \`date_end\` date default NULL,
    \`status\` enum('Active','Inactive') default 'Inactive',
    primary key (\`id\`)
  ) engine=innodb default charset=utf8`,
  `create table \`WorkDays\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`name\` varchar(100) NOT NULL,
    \`status\` enum('Full Day','Half Day','Non-working Day') default 'Full Day',
    \`country\` bigint(20) DEFAULT NULL,
    primary key (\`id\`),
    unique key \`workdays_name_country\` (\`name\`,\`country\`)
  ) engine=innodb default charset=utf8`,
  `create table \`HoliDays\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`name\` varchar(100) NOT NULL,
    \`dateh\` date default NULL,
    \`status\` enum('Full Day','Half Day') default 'Full Day',
    \`country\` bigint(20) DEFAULT NULL,
    primary key (\`id\`),
    unique key \`holidays_dateh_country\` (\`dateh\`,\`country\`)
  ) engine=innodb default charset=utf8`,
  `create table \`EmployeeLeaves\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`employee\` bigint(20) NOT NULL,
    \`leave_type\` bigint(20) NOT NULL,
    \`leave_period\` bigint(20) NOT NULL,
    \`date_start\` date default NULL,
    \`date_end\` date default NULL,
    \`details\` text default null,
    \`status\` enum('Approved','Pending','Rejected','Cancellation Requested','Cancelled','Processing') default 'Pending',
    \`attachment\` varchar(100) NULL,
    CONSTRAINT \`Fk_EmployeeLeaves_Employee\` FOREIGN KEY (\`employee\`) REFERENCES \`Employees\` (\`id\`) ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT \`Fk_EmployeeLeaves_LeaveTypes\` FOREIGN KEY (\`leave_type\`) REFERENCES \`LeaveTypes\` (\`id\`),
    CONSTRAINT \`Fk_EmployeeLeaves_LeavePeriods\` FOREIGN KEY (\`leave_period\`) REFERENCES \`LeavePeriods\` (\`id\`),
    primary key (\`id\`)
  ) engine=innodb default charset=utf8`,
  `create table \`EmployeeLeaveDays\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`employee_leave\` bigint(20) NOT NULL,
    \`leave_date\` date default NULL,
    \`leave_type\` enum('Full Day','Half Day - Morning','Half Day - Afternoon','1 Hour - Morning','2 Hours - Morning','3 Hours - Morning','1 Hour - Afternoon','2 Hours - Afternoon','3 Hours - Afternoon') NOT NULL,
    CONSTRAINT \`Fk_EmployeeLeaveDays_EmployeeLeaves\` FOREIGN KEY (\`employee_leave\`) REFERENCES \`EmployeeLeaves\` (\`id\`) ON DELETE CASCADE ON UPDATE CASCADE,
    primary key (\`id\`)
  ) engine=innodb default charset=utf8`,
  `create table \`Settings\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`name\` varchar(100) NOT NULL,
    \`value\` text default null,
    \`description\` text default null,
    \`meta\` text default null,
    primary key (\`id\`),
    UNIQUE KEY(\`name\`)
  ) engine=innodb default charset=utf8`,
  `create table \`Migrations\` (
    \`id\` bigint(20) NOT NULL AUTO_INCREMENT,
    \`file\` varchar(50) NOT NULL,
    \`version\` int(11) NOT NULL,
    \`created\` DATETIME default NULL,
    \`updated\` DATETIME default NULL,
    \`status\` enum('Pending','Up','Down','UpError','DownError') default 'Pending',
    \`last_error\` varchar(500) NULL,
    primary key (\`id\`),
    unique key \`KEY_Migrations_file\` (\`file\`),
    index \`KEY_Migrations_status\` (\`status\`),
    index \`KEY_Migrations_version\` (\`version\`)
  ) engine=innodb default charset=utf8`,
];

/**
 * The columns the import reads that IceHrm's base schema (core/scripts/icehrmdb.sql, as an
 * installation starts, and releases before 26) lacks: run-time migrations add them later.
 */
export const BASE_SCHEMA_LACKS: Record<string, string[]> = {
  Attendance: ['map_lat', 'map_lng', 'map_out_lat', 'map_out_lng', 'in_ip', 'out_ip'],
};

/** Turns `db` into a database as IceHrm's base schema left it: no such columns, no migration applied. */
export async function toBaseSchema(db: IcehrmDatabase): Promise<void> {
  for (const [table, columns] of Object.entries(BASE_SCHEMA_LACKS)) {
    await db.connection.query(`ALTER TABLE \`${table}\` ${columns.map((column) => `DROP COLUMN \`${column}\``).join(', ')}`);
  }
  await db.connection.query('DELETE FROM `Migrations`');
}

export interface IcehrmDatabase {
  /** mysql://... of the schema, for --from. */
  url: string;
  name: string;
  connection: mysql.Connection;
  /** Inserts rows (objects with the same keys) into an IceHrm table, `chunk` rows per statement. */
  insert(table: string, rows: Array<Record<string, unknown>>, chunk?: number): Promise<void>;
  drop(): Promise<void>;
}

/**
 * A new schema of its own on the MySQL/MariaDB server at `serverUrl`, with IceHrm's tables, and a
 * connection that may write what IceHrm installations hold: zero dates, and (foreign key checks
 * off, as a restored dump) rows pointing at deleted ones.
 */
export async function createIcehrmDatabase(serverUrl: string, options: { tables?: boolean } = {}): Promise<IcehrmDatabase> {
  const name = `icehrm_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = await mysql.createConnection({ uri: serverUrl });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8 COLLATE utf8_general_ci`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const connection = await mysql.createConnection({ uri: url.toString(), dateStrings: true });
  await connection.query("SET SESSION sql_mode = '', foreign_key_checks = 0");
  if (options.tables !== false) for (const sql of TABLES) await connection.query(sql);
  return {
    url: url.toString(),
    name,
    connection,
    insert: async (table, rows, chunk = 1000) => {
      for (let start = 0; start < rows.length; start += chunk) {
        const batch = rows.slice(start, start + chunk);
        const columns = Object.keys(batch[0]!);
        await connection.query(`INSERT INTO \`${table}\` (${columns.map((c) => `\`${c}\``).join(', ')}) VALUES ?`, [
          batch.map((row) => columns.map((column) => row[column] ?? null)),
        ]);
      }
    },
    drop: async () => {
      await connection.end();
      const server = await mysql.createConnection({ uri: serverUrl });
      await server.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await server.end();
    },
  };
}
