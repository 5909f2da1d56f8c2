import { CircuitBreakerMiddleware } from "@switchyard/circuit-breaker"
import { ConfigCompiler, Gateway, ProviderSelection, Stage } from "@switchyard/core"
import { Providers, UpstreamClient } from "@switchyard/providers"
import { Resilience } from "@switchyard/retry"
import { Routing } from "@switchyard/routing"
import { Layer } from "effect"

export const pipeline = Gateway.Gateway.layer.pipe(
  Layer.provide([ProviderSelection.Selectors.layerHeaders, ConfigCompiler.ConfigCompiler.layer()]),
  Layer.provide([Routing.layer, Resilience.layer, CircuitBreakerMiddleware.stage, Providers.layer]),
  Layer.provide([Stage.Stages.layer, CircuitBreakerMiddleware.layerMemory, UpstreamClient.UpstreamClient.layer()])
)
