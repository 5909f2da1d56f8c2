import { CacheMiddleware, CacheStore, Embedder } from "@switchyard/cache"
import { ConfigCompiler, type Dispatch, ProviderRegistry, Stage, Strategy } from "@switchyard/core"
import { Effect, Layer } from "effect"

// the cache around each leaf, over the app's provider adapters; answers in memory (in Redis: @switchyard/cache/redis)
export const CompilerLive = (adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>) =>
  ConfigCompiler.ConfigCompiler.layer().pipe(
    Layer.provide([
      CacheMiddleware.stage(),
      Strategy.Strategies.layerSingle,
      ProviderRegistry.ProviderRegistry.layer(adapters)
    ]),
    Layer.provide([Stage.Stages.layer, CacheStore.layerMemory(), Embedder.layerLocal])
  )
const config = { provider: "openai", api_key: "sk-123", cache: { mode: "simple", max_age: 3600 } } as const
// the first request answers x-gateway-cache-status: MISS, a repeat within the hour HIT without calling openai
export const ask: Dispatch.Dispatch<ConfigCompiler.ConfigCompiler> = (request) =>
  ConfigCompiler.ConfigCompiler.use((compiler) => compiler.dispatch("openai-cached", Effect.succeed(config))).pipe(
    Effect.flatMap((dispatch) => dispatch(request))
  )
