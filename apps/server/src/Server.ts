/**
 * The whole server as one Layer: the route table over the gateway pipeline, on node:http, with
 * storage, identity and stored provider access. Its type proves nothing is missing.
 */
import { AdminKeyBootstrap, ApiKeys, Authenticator, JwtVerifier, ServerSecret } from "@switchyard/auth"
import { CacheMiddleware, CacheStore, Embedder } from "@switchyard/cache"
import { CircuitBreakerMiddleware } from "@switchyard/circuit-breaker"
import { ConfigCompiler, Gateway, Stage, TrustedHosts } from "@switchyard/core"
import { FeedbackSql, Guardrails, StoredGuardrails } from "@switchyard/guardrails"
import { ProviderAccess } from "@switchyard/provider-access"
import { Providers, UpstreamClient } from "@switchyard/providers"
import { Resilience } from "@switchyard/retry"
import { Routing } from "@switchyard/routing"
import { Database } from "@switchyard/storage"
import { Console, Effect, Layer, Option } from "effect"
import * as GatewayEmbedder from "./GatewayEmbedder.ts"
import * as NodeEdge from "./http/NodeEdge.ts"
import * as Routes from "./Routes.ts"
import * as ManagementRoute from "./routes/ManagementRoute.ts"
import type { ServerConfig } from "./ServerConfig.ts"

const announceAdminKey = (key: string) =>
  Console.log(
    `No GATEWAY_ADMIN_KEY was set and no API key existed, so an admin key was created. It is shown this once:\n\n  ${key}\n\n` +
      "Only its hash is kept. Send it as the x-gateway-api-key header."
  )

/** Stored provider access over every adapter of the providers package. */
const providerAccess = Layer.unwrap(
  UpstreamClient.UpstreamClient.useSync((client) => ProviderAccess.layer(Providers.adapters(client)))
).pipe(Layer.provide(UpstreamClient.UpstreamClient.layer()))

/**
 * Every stage around a leaf's upstream call; core orders them by phase (`Stage.phases`). Cache
 * entries and circuits live in Redis when `REDIS_URL` is set, so replicas share them.
 */
const stages = (embedder: Layer.Layer<Embedder.Embedder>) =>
  Layer.mergeAll(
    Guardrails.stage(StoredGuardrails.StoredGuardrails.useSync((stored) => ({ resolve: stored.resolve }))),
    CacheMiddleware.stage(),
    Resilience.layer,
    CircuitBreakerMiddleware.stage
  ).pipe(Layer.provide([CacheStore.layerFromEnv, embedder, CircuitBreakerMiddleware.layerFromEnv]))

/** The pipeline every inference route runs, with the selectors of extensions.md in order. */
const pipeline = (embedder: Layer.Layer<Embedder.Embedder>) =>
  Gateway.Gateway.layer.pipe(
    Layer.provide(ProviderAccess.layerSelectors),
    Layer.provide(
      ConfigCompiler.ConfigCompiler.layer().pipe(
        Layer.provide([Routing.layer, stages(embedder)]),
        // one set of stages, shared by the stage layers and the compiler
        Layer.provide(Stage.Stages.layer)
      )
    )
  )

const secretRequired = (config: ServerConfig) =>
  Option.isSome(config.databaseUrl) && Option.isNone(config.secret)
    ? Effect.fail(
      new Error(
        "DATABASE_URL is set but GATEWAY_SECRET is not: replicas sharing a database must share the secret " +
          "that encrypts stored credentials, so set GATEWAY_SECRET on every replica"
      )
    )
    : Effect.void

export const layer = (config: ServerConfig): Layer.Layer<never, unknown> => {
  const storage = Layer.mergeAll(
    Database.layer({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }),
    ServerSecret.ServerSecret.layer({ secret: config.secret, dataDir: config.dataDir })
  )
  const identity = Layer.mergeAll(
    Authenticator.Authenticator.layer({ adminKey: config.adminKey }),
    AdminKeyBootstrap.layer({ adminKey: config.adminKey, announce: announceAdminKey })
  ).pipe(Layer.provideMerge(ApiKeys.ApiKeys.layer), Layer.provide(JwtVerifier.layerConfig))
  const guardrailStorage = Layer.mergeAll(StoredGuardrails.StoredGuardrails.layer, FeedbackSql.layerSql)
  // the semantic cache embeds locally, or through the gateway itself when a model is named
  const embedding = Option.map(config.cacheEmbeddingModel, GatewayEmbedder.make)
  const gatewayPipeline = Option.match(embedding, {
    onNone: () => pipeline(Embedder.layerLocal),
    onSome: ({ connect, embedder }) => Layer.provideMerge(connect, pipeline(embedder))
  })
  const services = Layer.provideMerge(gatewayPipeline, Layer.mergeAll(identity, providerAccess, guardrailStorage)).pipe(
    Layer.provideMerge(storage),
    // GATEWAY_TRUSTED_HOSTS judges every URL a caller supplies; an entry that does not parse stops start-up
    Layer.provideMerge(TrustedHosts.layer(config.trustedHosts))
  )
  const bodyTimeoutMs = config.bodyTimeoutSeconds * 1000
  return NodeEdge.layer(
    {
      host: config.host,
      port: config.port,
      gracefulShutdownMs: config.shutdownGraceSeconds * 1000,
      headersTimeoutMs: config.headersTimeoutSeconds * 1000,
      bodyTimeoutMs
    },
    {
      node: Routes.nodeRoutes({ body: { maxBytes: config.maxBodyBytes, timeoutMs: bodyTimeoutMs } }),
      router: Routes.routerRoutes.pipe(Layer.provide(Layer.succeed(ManagementRoute.BodyTimeoutMs, bodyTimeoutMs)))
    }
  ).pipe(
    // built before the server listens: node:http accepts connections as soon as it listens
    Layer.provide(services),
    Layer.provide(Layer.effectDiscard(secretRequired(config)))
  )
}
