import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  // Names are unique regardless of case: MySQL's collation does that, SQLite needs NOCASE.
  const name = (table: Knex.CreateTableBuilder) =>
    mysql ? table.string('name', 100).notNullable() : table.specificType('name', 'varchar(100) COLLATE NOCASE').notNullable();
  if (mysql) {
    // Every table below inherits this: full Unicode, and case-insensitive uniqueness of codes and
    // names on MySQL 8 and MariaDB alike.
    await knex.raw('ALTER DATABASE CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
  }
  await knex.schema.createTable('countries', (table) => {
    table.string('code', 2).primary();
    table.string('iso3', 3).notNullable().unique();
    table.string('numeric_code', 3).notNullable();
    table.string('name', 100).notNullable();
  });
  await knex.schema.createTable('provinces', (table) => {
    table.increments('id');
    table.string('country_code', 2).notNullable().references('code').inTable('countries');
    table.string('code', 10).nullable();
    name(table);
    table.unique(['country_code', 'name']);
  });
  await knex.schema.createTable('nationalities', (table) => {
    table.increments('id');
    name(table).unique();
  });
  await knex.schema.createTable('employment_statuses', (table) => {
    table.increments('id');
    name(table).unique();
    table.string('description', 500).nullable();
  });
  await knex.schema.createTable('job_titles', (table) => {
    table.increments('id');
    table.string('code', 50).nullable();
    name(table).unique();
    table.string('description', 500).nullable();
  });
  await knex.schema.createTable('pay_grades', (table) => {
    table.increments('id');
    name(table).unique();
    table.string('currency', 3).nullable();
    table.decimal('min_salary', 12, 2).nullable();
    table.decimal('max_salary', 12, 2).nullable();
  });
  await knex.schema.createTable('departments', (table) => {
    table.increments('id');
    table.string('name', 100).notNullable();
    table.string('description', 500).nullable();
    table.integer('parent_id').unsigned().nullable().references('id').inTable('departments').onDelete('SET NULL');
    table.index(['parent_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['departments', 'pay_grades', 'job_titles', 'employment_statuses', 'nationalities', 'provinces', 'countries']) {
    await knex.schema.dropTable(table);
  }
}
