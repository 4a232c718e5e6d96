import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  await knex.schema.createTable('users', (table) => {
    table.increments('id');
    // Usernames are unique and looked up regardless of case, on both dialects.
    if (mysql) table.string('username', 100).notNullable().unique();
    else table.specificType('username', 'varchar(100) COLLATE NOCASE').notNullable().unique();
    table.string('role', 20).notNullable();
    table.integer('employee_id').unsigned().nullable().unique().references('id').inTable('employees').onDelete('SET NULL');
    table.string('password_hash', 255).nullable();
    table.boolean('disabled').notNullable().defaultTo(false);
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('updated_at', { precision: 3 }).notNullable();
  });

  // A token row holds the JWT's id (jti), never the token: a database reader cannot use it.
  await knex.schema.createTable('api_tokens', (table) => {
    table.string('id', 36).primary();
    table.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    table.string('name', 100).nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('expires_at', { precision: 3 }).notNullable();
    table.datetime('revoked_at', { precision: 3 }).nullable();
    table.datetime('last_used_at', { precision: 3 }).nullable();
    table.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_tokens');
  await knex.schema.dropTable('users');
}
