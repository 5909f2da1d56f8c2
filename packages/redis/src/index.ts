export * as RedisConnection from "./RedisConnection.ts"
export * as StoreOutage from "./StoreOutage.ts"
