/**
 * The pipeline every inference request runs: the selectors of extensions.md in order, the routing
 * strategies, and every stage around a leaf's upstream call, which core orders by phase
 * (`Stage.phases`).
 */
import { CacheMiddleware, type Embedder } from "@switchyard/cache"
import { CircuitBreakerMiddleware } from "@switchyard/circuit-breaker"
import { ConfigCompiler, Gateway, type ProviderRegistry, Stage } from "@switchyard/core"
import { type Feedback, Guardrails, StoredGuardrails } from "@switchyard/guardrails"
import { PromptStage, type PromptStore } from "@switchyard/prompts"
import { Integrations, ProviderAccess, type StoredConfigs, VirtualKeys } from "@switchyard/provider-access"
import { Resilience } from "@switchyard/retry"
import { Routing } from "@switchyard/routing"
import type { Database } from "@switchyard/storage"
import { type RatePolicies, StoredProviders, UsageLimits, type UsagePolicies } from "@switchyard/usage-limits"
import { Effect, Layer, Option } from "effect"
import type { Redis } from "effect/persistence"
import type { SqlClient } from "effect/sql"
import type { CacheAndCircuits, CountersLayer, MissingRedisPackage } from "./SharedStores.ts"

/** What the request pipeline reads from the stores around it. */
type Requirements =
  | Database.Dialect
  | Feedback.FeedbackStore
  | Integrations.Integrations
  | PromptStore.PromptStore
  | ProviderRegistry.ProviderRegistry
  | RatePolicies.RatePolicies
  | SqlClient.SqlClient
  | StoredConfigs.StoredConfigs
  | StoredGuardrails.StoredGuardrails
  | UsagePolicies.UsagePolicies
  | VirtualKeys.VirtualKeys

/** For usage limits: the provider behind an `@slug` or a virtual key, from the stored credentials. */
const storedProviders = Layer.effect(
  StoredProviders.StoredProviders,
  Effect.gen(function*() {
    const integrations = yield* Integrations.Integrations
    const virtualKeys = yield* VirtualKeys.VirtualKeys
    return {
      resolve: (workspaceId: string, target: StoredProviders.StoredTarget) =>
        (target.virtual_key === undefined
          ? integrations.resolve(workspaceId, target.provider.slice(1))
          : virtualKeys.resolve(workspaceId, target.virtual_key)).pipe(
            Effect.map(Option.match({
              onNone: () => undefined,
              onSome: (found) => ({
                provider: found.provider,
                price: found.pricing === undefined ? undefined : {
                  inputPerMillion: found.pricing.input_per_million,
                  outputPerMillion: found.pricing.output_per_million
                },
                // what virtual_key conditions name: the key's id, never its token
                virtualKeyId: target.virtual_key === undefined ? undefined : found.id
              })
            })),
            // an unreadable credential fails its request in the adapter; here it only goes unresolved
            Effect.orElseSucceed(() => undefined)
          )
    }
  })
)

/** Every stage around a leaf's upstream call; core orders them by phase (`Stage.phases`). */
const stages = (
  options: { readonly limitsOnStoreError?: UsageLimits.OnStoreError | undefined },
  embedder: Layer.Layer<Embedder.Embedder>,
  counters: CountersLayer,
  stores: CacheAndCircuits
) =>
  Layer.mergeAll(
    PromptStage.layer,
    Guardrails.stage(StoredGuardrails.StoredGuardrails.useSync((stored) => ({ resolve: stored.resolve }))),
    UsageLimits.stage({ onStoreError: options.limitsOnStoreError }).pipe(Layer.provide(storedProviders)),
    CacheMiddleware.stage(),
    Resilience.layer,
    CircuitBreakerMiddleware.stage
  ).pipe(
    Layer.provide(embedder),
    Layer.provide(counters),
    Layer.provide(stores)
  )

/** The pipeline every inference request runs, with the selectors of extensions.md in order. */
export const gateway = (
  options: { readonly limitsOnStoreError?: UsageLimits.OnStoreError | undefined },
  embedder: Layer.Layer<Embedder.Embedder>,
  counters: CountersLayer,
  stores: CacheAndCircuits
): Layer.Layer<Gateway.Gateway, MissingRedisPackage | Redis.RedisError | Stage.StageConflict, Requirements> =>
  Gateway.Gateway.layer.pipe(
    Layer.provide(ProviderAccess.layerSelectors),
    Layer.provide(
      ConfigCompiler.ConfigCompiler.layer().pipe(
        Layer.provide([Routing.layer, stages(options, embedder, counters, stores)]),
        // one set of stages, shared by the stage layers and the compiler
        Layer.provide(Stage.Stages.layer)
      )
    )
  )
