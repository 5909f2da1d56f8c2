import { OtlpTraces } from "@switchyard/observability"
import { ConfigProvider } from "effect"

// what OTEL_EXPORTER_OTLP_ENDPOINT and the rest say (undefined when tracing is off); provide
// OtlpTraces.layer(settings) to what makes the request path's spans, which reads Tracing.Enabled
// as it is built and makes no span at all when it is off
const settings = OtlpTraces.SettingsConfig.parse(
  ConfigProvider.fromEnv({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SERVICE_NAME: "edge-1" } })
)
// README end

/** The example, for the test. */
export const traceSettings = settings
