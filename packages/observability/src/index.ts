export * as GatewayMetrics from "./GatewayMetrics.ts"
export * as MetricsText from "./MetricsText.ts"
export * as OtlpTraces from "./OtlpTraces.ts"
export * as Tracing from "./Tracing.ts"
