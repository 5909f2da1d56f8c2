export * as GatewayMetrics from "./GatewayMetrics.ts"
export * as MetricsText from "./MetricsText.ts"
