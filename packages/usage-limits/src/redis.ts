/**
 * `@switchyard/usage-limits/redis`: usage counters in Redis, apart from the main entry so that
 * only an app that keeps its counters in Redis installs and loads a Redis client
 * (`@switchyard/redis`).
 *
 * @since 0.1.0
 */
export * as RedisUsageCounters from "./RedisUsageCounters.ts"
