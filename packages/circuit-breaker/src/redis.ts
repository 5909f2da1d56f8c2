/**
 * `@switchyard/circuit-breaker/redis`: the circuit stores in Redis, apart from the main entry so
 * that only an app that keeps circuits in Redis installs and loads a Redis client
 * (`@switchyard/redis`).
 *
 * @since 0.1.0
 */
export * as RedisCircuitStore from "./RedisCircuitStore.ts"
