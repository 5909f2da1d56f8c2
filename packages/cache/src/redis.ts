/**
 * `@switchyard/cache/redis`: the cache's Redis store, apart from the main entry so that only an
 * app that keeps its cache in Redis installs and loads a Redis client (`@switchyard/redis`).
 *
 * @since 0.1.0
 */
export * as RedisCacheStore from "./RedisCacheStore.ts"
