import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  await knex.schema.createTable('employees', (table) => {
    table.increments('id');
    // Employee codes are unique regardless of case: MySQL's collation does that, SQLite needs NOCASE.
    if (mysql) table.string('employee_id', 50).notNullable().unique();
    else table.specificType('employee_id', 'varchar(50) COLLATE NOCASE').notNullable().unique();
    table.string('first_name', 100).notNullable();
    table.string('middle_name', 100).nullable();
    table.string('last_name', 100).notNullable();
    table.integer('nationality_id').unsigned().nullable().references('id').inTable('nationalities');
    table.date('birthday').nullable();
    table.string('gender', 20).nullable();
    table.string('marital_status', 20).nullable();
    table.string('ssn_num', 100).nullable();
    table.string('nic_num', 100).nullable();
    table.string('other_id', 100).nullable();
    table.string('driving_license', 100).nullable();
    table.integer('employment_status_id').unsigned().nullable().references('id').inTable('employment_statuses');
    table.integer('job_title_id').unsigned().nullable().references('id').inTable('job_titles');
    table.integer('pay_grade_id').unsigned().nullable().references('id').inTable('pay_grades');
    table.string('work_station_id', 100).nullable();
    table.string('address1', 255).nullable();
    table.string('address2', 255).nullable();
    table.string('city', 150).nullable();
    table.string('country_code', 2).nullable().references('code').inTable('countries');
    table.integer('province_id').unsigned().nullable().references('id').inTable('provinces');
    table.string('postal_code', 20).nullable();
    table.string('home_phone', 50).nullable();
    table.string('mobile_phone', 50).nullable();
    table.string('work_phone', 50).nullable();
    table.string('work_email', 254).nullable();
    table.string('private_email', 254).nullable();
    table.date('joined_date').nullable();
    table.date('confirmation_date').nullable();
    table.integer('supervisor_id').unsigned().nullable().references('id').inTable('employees').onDelete('SET NULL');
    table.text('indirect_supervisors').nullable();
    table.integer('department_id').unsigned().nullable().references('id').inTable('departments');
    table.date('termination_date').nullable();
    table.string('status', 20).notNullable().defaultTo('Active');
    table.integer('approver1_id').unsigned().nullable().references('id').inTable('employees').onDelete('SET NULL');
    table.integer('approver2_id').unsigned().nullable().references('id').inTable('employees').onDelete('SET NULL');
    table.integer('approver3_id').unsigned().nullable().references('id').inTable('employees').onDelete('SET NULL');
    table.string('timezone', 64).notNullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('updated_at', { precision: 3 }).notNullable();

    // MySQL indexes foreign keys by itself; SQLite needs them spelled out for the list filters.
    for (const column of ['supervisor_id', 'department_id', 'job_title_id', 'employment_status_id', 'pay_grade_id', 'country_code']) {
      table.index([column]);
    }
    table.index(['status']);
    table.index(['last_name', 'first_name']);
    table.index(['updated_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('employees');
}
