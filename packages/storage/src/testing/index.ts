/**
 * `@switchyard/storage/testing`: migrated databases for this repository's tests. Not published:
 * the entry exists only under the workspace's `@switchyard/source` condition.
 */
export * as TestDatabase from "./TestDatabase.ts"
export * as WriteLock from "./WriteLock.ts"
