export * as CircuitBreakerMiddleware from "./CircuitBreakerMiddleware.ts"
export * as CircuitKey from "./CircuitKey.ts"
