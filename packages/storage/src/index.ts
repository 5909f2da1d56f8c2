export * as Database from "./Database.ts"
export * as KeysetPage from "./KeysetPage.ts"
export * as Migrations from "./Migrations.ts"
export * as SqliteClient from "./SqliteClient.ts"
