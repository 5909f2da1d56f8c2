export * as CircuitBoard from "./CircuitBoard.ts"
export * as CircuitBreakerMiddleware from "./CircuitBreakerMiddleware.ts"
export * as CircuitKey from "./CircuitKey.ts"
