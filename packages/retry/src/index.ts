export * as RequestTimeout from "./RequestTimeout.ts"
export * as Resilience from "./Resilience.ts"
export * as Retry from "./Retry.ts"
