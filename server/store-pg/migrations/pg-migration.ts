/** One numbered migration of team mode's schema (migrations.ts lists them, migrate.ts applies them). */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}
