export * as Metering from "./Metering.ts"
export * as UsageCounters from "./UsageCounters.ts"
export * as UsageLimits from "./UsageLimits.ts"
export * as UsagePolicies from "./UsagePolicies.ts"
