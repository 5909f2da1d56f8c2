/**
 * The whole gateway pipeline in one layer: storage (SQLite or Postgres), identity (API keys, the
 * admin key, JWT), stored provider access (integrations, virtual keys, configs) and every stage
 * around each target (guardrails, cache, retry, circuit breaker, timeout), with the selectors of
 * extensions.md. The server, the batch worker and any service that embeds the gateway build it
 * from one options object, or from the environment with {@link layerConfig}.
 *
 * @example
 * import { Pipeline } from "@switchyard/gateway"
 * import { Gateway } from "@switchyard/core"
 * import { Effect } from "effect"
 * const program = Gateway.Gateway.use((gateway) => gateway.handle(input))
 * program.pipe(Effect.provide(Pipeline.layer({ dataDir: "./.switchyard" })))
 */
import { Runs, ThreadStore } from "@switchyard/assistants"
import { AdminKeyBootstrap, ApiKeys, Authenticator, JwtVerifier, ServerSecret } from "@switchyard/auth"
import { Batches, BatchQueue } from "@switchyard/batches"
import { CacheMiddleware, CacheStore, Embedder } from "@switchyard/cache"
import { CircuitBoard, CircuitBreakerMiddleware } from "@switchyard/circuit-breaker"
import {
  ConfigCompiler,
  Gateway,
  type GatewayError,
  type ProviderRegistry,
  Stage,
  TrustedHosts
} from "@switchyard/core"
import { FileContents, FileStore } from "@switchyard/files"
import { type Feedback, FeedbackSql, Guardrails, StoredGuardrails } from "@switchyard/guardrails"
import { PromptStage, PromptStore } from "@switchyard/prompts"
import { Integrations, ProviderAccess, type StoredConfigs, VirtualKeys } from "@switchyard/provider-access"
import { Providers, UpstreamClient } from "@switchyard/providers"
import { RecordedGateway, RequestLog, RequestLogStore } from "@switchyard/request-log"
import { ResponseStore } from "@switchyard/responses-format"
import { Resilience } from "@switchyard/retry"
import { Routing } from "@switchyard/routing"
import { Database } from "@switchyard/storage"
import {
  LocalWindows,
  RatePolicies,
  StoredProviders,
  UsageCounters,
  UsageLimits,
  UsagePolicies
} from "@switchyard/usage-limits"
import { Config, ConfigProvider, Data, Duration, Effect, Layer, Option, type Redacted, Schema } from "effect"
import type { RateLimiter, Redis } from "effect/persistence"
import type { SqlClient } from "effect/sql"
import { join } from "node:path"
import * as GatewayEmbedder from "./internal/GatewayEmbedder.ts"

export interface Options {
  /** The SQLite database and the generated secret live here (default `./.switchyard`). */
  readonly dataDir?: string | undefined
  /** `postgres://…`: durable state in Postgres instead of SQLite; needs `secret`. */
  readonly databaseUrl?: Redacted.Redacted<string> | undefined
  /** `redis://…`: cache entries and circuits in Redis, shared by replicas; memory without it. */
  readonly redisUrl?: Redacted.Redacted<string> | undefined
  /** Keys API-key hashes and seals stored credentials; generated into `dataDir` when absent. */
  readonly secret?: Redacted.Redacted<string> | undefined
  /** An API key with every scope; without it, one is created when no key exists and announced. */
  readonly adminKey?: Redacted.Redacted<string> | undefined
  /** Called once with a generated admin key (default: printed on stdout). */
  readonly announceAdminKey?: ((key: string) => Effect.Effect<void>) | undefined
  /** `GATEWAY_TRUSTED_HOSTS` syntax (default `localhost,127.0.0.1,::1`; "" trusts none). */
  readonly trustedHosts?: string | undefined
  /** The semantic cache embeds through the gateway with this model; a local embedder without it. */
  readonly cacheEmbeddingModel?: string | undefined
  /** JWTs in `x-gateway-api-key`, verified against this JWKS; refused without it. */
  readonly jwt?: JwtVerifier.Options | undefined
  /** When the usage counters cannot be reached: `closed` (default, 503) or `open` (let through, logged). */
  readonly limitsOnStoreError?: UsageLimits.OnStoreError | undefined
  /**
   * How long a usage-limit reservation in counters shared by replicas (Postgres, Redis) holds
   * before it is given back unsettled: its process died (default 900; `UsageCounters.ReservationLease`).
   */
  readonly limitsReservationLeaseSeconds?: number | undefined
  /** How long a batch job held by a process that died waits before another worker takes it (default 30). */
  readonly batchLeaseSeconds?: number | undefined
  /** How many lines of one batch are queued or running at once, over all workers (default 64). */
  readonly batchLinesInFlight?: number | undefined
  /** How many lines of all batches this process sends to one provider target at once (default 16). */
  readonly batchLinesPerTarget?: number | undefined
  /**
   * How many batch jobs a worker (the server's or the worker app's) does at once (default 32); the
   * pipeline itself does not use it, the apps read it here so both take it from one variable.
   */
  readonly batchWorkerConcurrency?: number | undefined
  /** The request log: bodies kept or not, retention (`GATEWAY_LOG_BODIES`, `GATEWAY_LOG_RETENTION_DAYS`). */
  readonly requestLog?: RequestLog.Options | undefined
}

const DEFAULT_DATA_DIR = "./.switchyard"

const printAdminKey = (key: string) =>
  Effect.sync(() =>
    console.log(
      `No GATEWAY_ADMIN_KEY was set and no API key existed, so an admin key was created. It is shown this once:\n\n  ${key}\n\n` +
        "Only its hash is kept. Send it as the x-gateway-api-key header."
    )
  )

/** Stored provider access over every adapter of the providers package. */
const providerAccess = Layer.unwrap(
  UpstreamClient.UpstreamClient.useSync((client) => ProviderAccess.layer(Providers.adapters(client)))
).pipe(Layer.provide(UpstreamClient.UpstreamClient.layer()))

/** A start-up error: Redis was asked for, but the optional peer that connects to it is missing. */
export class MissingRedisPackage extends Data.TaggedError("MissingRedisPackage")<{
  readonly message: string
  readonly cause: unknown
}> {}

/**
 * The cache and circuit stores in Redis. They are imported only when a Redis URL is given, so a
 * gateway kept in memory needs neither `@switchyard/redis` (an optional peer) nor a Redis client.
 */
const redisStores = (url: Redacted.Redacted<string>) =>
  Layer.unwrap(
    Effect.tryPromise({
      try: () => Promise.all([import("@switchyard/cache/redis"), import("@switchyard/circuit-breaker/redis")]),
      catch: (cause) =>
        new MissingRedisPackage({
          message: "REDIS_URL (redisUrl) is set but the Redis stores could not be loaded: install " +
            `@switchyard/redis next to @switchyard/gateway (${String(cause)})`,
          cause
        })
    }).pipe(
      Effect.map(([cache, circuits]) =>
        Layer.merge(cache.RedisCacheStore.layer({ url }), circuits.RedisCircuitStore.layer({ url }))
      )
    )
  )

/**
 * Usage counters and rate windows in Redis when it is configured; otherwise rate windows in memory
 * and counters in the gateway's database: kept in memory and written in batches on this process's
 * own SQLite, taken row by row on Postgres (shared by replicas). Like the other Redis stores,
 * imported only for a Redis URL.
 */
/** What {@link usageCounters} builds, also with a reservation lease provided to it. */
type CountersLayer = Layer.Layer<
  UsageCounters.UsageCounters | RateLimiter.RateLimiterStore,
  MissingRedisPackage | Redis.RedisError,
  Database.Dialect | SqlClient.SqlClient
>

const usageCounters = (options: Options): CountersLayer => {
  const url = options.redisUrl
  if (url === undefined) {
    return Layer.merge(
      Layer.unwrap(
        Database.Dialect.useSync((dialect) =>
          dialect.name === "sqlite" ? UsageCounters.UsageCounters.layerLocal : UsageCounters.UsageCounters.layerSql
        )
      ),
      LocalWindows.layer
    )
  }
  return Layer.unwrap(
    Effect.tryPromise({
      try: () => import("@switchyard/usage-limits/redis"),
      catch: (cause) =>
        new MissingRedisPackage({
          message: "REDIS_URL (redisUrl) is set but the Redis usage counters could not be loaded: install " +
            `@switchyard/redis next to @switchyard/gateway (${String(cause)})`,
          cause
        })
    }).pipe(Effect.map((redis) => redis.RedisUsageCounters.layerStores({ url })))
  )
}

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
  options: Options,
  embedder: Layer.Layer<Embedder.Embedder>,
  counters: CountersLayer,
  stores: ReturnType<typeof cacheAndCircuits>
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

/**
 * The cache and circuit stores, in memory or in Redis; the circuits watched by the board that
 * `GET /v1/circuits` reads (its store wins over the one it watches).
 */
const cacheAndCircuits = (options: Options) =>
  Layer.provideMerge(
    CircuitBoard.layer,
    options.redisUrl === undefined
      ? Layer.merge(CacheStore.layerMemory(), CircuitBreakerMiddleware.layerMemory)
      : redisStores(options.redisUrl)
  )

/** The pipeline every inference request runs, with the selectors of extensions.md in order. */
const gateway = (
  options: Options,
  embedder: Layer.Layer<Embedder.Embedder>,
  counters: CountersLayer,
  stores: ReturnType<typeof cacheAndCircuits>
) =>
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

/** A start-up error: replicas sharing a database must share the secret that seals credentials. */
export class MissingSecret extends Data.TaggedError("MissingSecret")<{ readonly message: string }> {}

const missingSecret = new MissingSecret({
  message: "DATABASE_URL is set but GATEWAY_SECRET is not: replicas sharing a database must share the secret " +
    "that encrypts stored credentials, so set GATEWAY_SECRET on every replica"
})

/** What the pipeline provides: the gateway, identity, stored provider access and their storage. */
export type Services =
  | Gateway.Gateway
  | CircuitBoard.CircuitBoard
  | Authenticator.Authenticator
  | ApiKeys.ApiKeys
  | ServerSecret.ServerSecret
  | ProviderRegistry.ProviderRegistry
  | Integrations.Integrations
  | VirtualKeys.VirtualKeys
  | StoredConfigs.StoredConfigs
  | StoredGuardrails.StoredGuardrails
  | Feedback.FeedbackStore
  | UsagePolicies.UsagePolicies
  | UsageCounters.UsageCounters
  | RatePolicies.RatePolicies
  | PromptStore.PromptStore
  | ThreadStore.ThreadStore
  | ResponseStore.ResponseStore
  | Runs.Runs
  | FileStore.FileStore
  | FileContents.FileContents
  | Batches.Batches
  | BatchQueue.BatchQueue
  | SqlClient.SqlClient
  | Database.Dialect
  | RequestLog.RequestLog
  | RequestLogStore.RequestLogStore

/** Why the pipeline could not start: each names what to fix. */
export type StartupError =
  | MissingSecret
  | MissingRedisPackage
  | Database.DatabaseError
  | TrustedHosts.InvalidTrustedHosts
  | JwtVerifier.JwtConfigError
  | Redis.RedisError
  | Stage.StageConflict
  | GatewayError.InternalError
  | Error

/**
 * The whole pipeline from `options`: `Gateway` and every store the routes need, built and ready.
 *
 * @example
 * import { Pipeline } from "@switchyard/gateway"
 * const embedded = Pipeline.layer({ dataDir: "/var/lib/my-service/gateway" })
 */
export const layer = (options: Options = {}): Layer.Layer<Services, StartupError> => {
  const dataDir = options.dataDir ?? DEFAULT_DATA_DIR
  const databaseUrl = Option.fromUndefinedOr(options.databaseUrl)
  const secret = Option.fromUndefinedOr(options.secret)
  const adminKey = Option.fromUndefinedOr(options.adminKey)
  const storage = Layer.mergeAll(
    Database.layer({ databaseUrl, dataDir }),
    ServerSecret.ServerSecret.layer({ secret, dataDir })
  )
  const identity = Layer.mergeAll(
    Authenticator.Authenticator.layer({ adminKey }),
    AdminKeyBootstrap.layer({ adminKey, announce: options.announceAdminKey ?? printAdminKey })
  ).pipe(Layer.provideMerge(ApiKeys.ApiKeys.layer), Layer.provide(JwtVerifier.layer(options.jwt ?? {})))
  const lease = options.limitsReservationLeaseSeconds
  const counters: CountersLayer = lease === undefined
    ? usageCounters(options)
    : usageCounters(options).pipe(
      Layer.provide(Layer.succeed(UsageCounters.ReservationLease, Duration.seconds(lease)))
    )
  // one set, built once, for the stages and the route that lists circuits
  const stores = cacheAndCircuits(options)
  // one writer, built once: the HTTP edge and the in-process calls record into its one buffer
  const requestLog = RequestLog.RequestLog.layer(options.requestLog).pipe(
    Layer.provideMerge(Layer.unwrap(Database.Dialect.useSync((dialect) =>
      // on the embedded SQLite, written by a thread of its own: node:sqlite would block the event loop
      dialect.name === "sqlite"
        ? RequestLogStore.RequestLogStore.layerSqliteThread(join(dataDir, Database.SQLITE_FILE))
        : RequestLogStore.RequestLogStore.layerSql
    )))
  )
  const guardrailStorage = Layer.mergeAll(
    StoredGuardrails.StoredGuardrails.layer,
    FeedbackSql.layerSql,
    UsagePolicies.UsagePolicies.layer,
    RatePolicies.RatePolicies.layer,
    PromptStore.PromptStore.layer,
    // one store, built once, for the stage and the routes that report usage
    counters,
    requestLog
  )
  // the semantic cache embeds locally, or through the gateway itself when a model is named
  const pipeline = options.cacheEmbeddingModel === undefined
    ? gateway(options, Embedder.layerLocal, counters, stores)
    : Layer.unwrap(Effect.sync(() => {
      const { connect, embedder } = GatewayEmbedder.make(options.cacheEmbeddingModel ?? "")
      return Layer.provideMerge(connect, gateway(options, embedder, counters, stores))
    }))
  // assistant runs call the pipeline in process, in the background, and are taken over after a
  // restart: at once on this process's own SQLite, once their lease lapses on a shared Postgres
  const assistants = Layer.unwrap(
    Database.Dialect.useSync((dialect) => dialect.name === "sqlite" ? Runs.Runs.layerSoleProcess : Runs.Runs.layer)
  ).pipe(
    Layer.provideMerge(ThreadStore.ThreadStore.layer),
    // each call a run makes is recorded in the request log
    Layer.provide(RecordedGateway.layer("assistant run"))
  )
  // file contents: on disk in the data dir beside the SQLite file; in the shared Postgres otherwise,
  // where every replica and batch worker reads them without a shared mount (also given to the
  // server, whose OrphanSweep removes what uploads cut off by a crash left there)
  const files = FileStore.FileStore.layer.pipe(
    Layer.provideMerge(Layer.unwrap(
      Database.Dialect.useSync((dialect) =>
        dialect.name === "sqlite" ? FileContents.layerDirectory(join(dataDir, "files")) : FileContents.layerSql
      )
    ))
  )
  // batches keep their lines' work on a queue in the same database, which every worker takes from
  const batches = Batches.Batches.layerWith({
    maxLinesInFlight: options.batchLinesInFlight,
    maxLinesPerTarget: options.batchLinesPerTarget
  }).pipe(
    Layer.provideMerge(BatchQueue.layerSql({ lockExpiration: Duration.seconds(options.batchLeaseSeconds ?? 30) })),
    Layer.provideMerge(files),
    // each line's call is recorded in the request log
    Layer.provide(RecordedGateway.layer("batch line"))
  )
  return Layer.provideMerge(
    Layer.mergeAll(assistants, batches, ResponseStore.ResponseStore.layer),
    Layer.provideMerge(pipeline, Layer.mergeAll(identity, providerAccess, guardrailStorage, stores))
  ).pipe(
    Layer.provideMerge(storage),
    // every URL a caller supplies is judged by this list; an entry that does not parse stops start-up
    Layer.provideMerge(TrustedHosts.layer(options.trustedHosts ?? TrustedHosts.DEFAULT_LIST)),
    Layer.provide(
      Layer.effectDiscard(
        Option.isSome(databaseUrl) && Option.isNone(secret) ? Effect.fail(missingSecret) : Effect.void
      )
    )
  )
}

const optional = <A>(config: Config.Config<A>) => Config.option(config).pipe(Config.map(Option.getOrUndefined))

/** A whole number of at least 1: a bound of 0 would stop every batch without saying why. */
const atLeastOne = (name: string) =>
  Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "must be a whole number >= 1" })), name)

/**
 * `GATEWAY_TRUSTED_HOSTS`. Effect reads an empty variable as a missing one; here set-but-empty is
 * a value of its own (trust no host, not even loopback), so the environment is asked again for it.
 */
const trustedHosts = Config.String(TrustedHosts.ENV).pipe(
  Config.option,
  Config.mapEffect((set) =>
    Option.isSome(set)
      ? Effect.succeed(set.value)
      : Config.String(TrustedHosts.ENV).pipe(Config.withDefault(TrustedHosts.DEFAULT_LIST)).parse(
        ConfigProvider.fromEnv({ preserveEmptyStrings: true })
      )
  )
)

/** The options extensions.md's environment variables set ("Running it"). */
export const OptionsConfig: Config.Config<Options> = Config.all({
  trustedHosts,
  dataDir: Config.String("GATEWAY_DATA_DIR").pipe(Config.withDefault(DEFAULT_DATA_DIR)),
  databaseUrl: optional(Config.Redacted("DATABASE_URL")),
  redisUrl: optional(Config.Redacted("REDIS_URL")),
  secret: optional(Config.Redacted("GATEWAY_SECRET")),
  adminKey: optional(Config.Redacted("GATEWAY_ADMIN_KEY")),
  cacheEmbeddingModel: optional(Config.String("GATEWAY_CACHE_EMBEDDING_MODEL")),
  batchLeaseSeconds: optional(Config.Int("GATEWAY_BATCH_LEASE_SECONDS")),
  batchLinesInFlight: optional(atLeastOne("GATEWAY_BATCH_LINES_IN_FLIGHT")),
  batchLinesPerTarget: optional(atLeastOne("GATEWAY_BATCH_LINES_PER_TARGET")),
  batchWorkerConcurrency: optional(atLeastOne("GATEWAY_BATCH_WORKER_CONCURRENCY")),
  limitsOnStoreError: Config.Literals(["closed", "open"], "GATEWAY_LIMITS_ON_STORE_ERROR").pipe(
    Config.withDefault("closed" as const)
  ),
  limitsReservationLeaseSeconds: optional(atLeastOne("GATEWAY_LIMITS_RESERVATION_LEASE_SECONDS")),
  requestLog: RequestLog.OptionsConfig,
  jwt: Config.all({
    jwksUrl: optional(Config.String("GATEWAY_JWKS_URL")),
    jwksFile: optional(Config.String("GATEWAY_JWKS_FILE")),
    issuer: optional(Config.String("GATEWAY_JWT_ISSUER")),
    audience: optional(Config.String("GATEWAY_JWT_AUDIENCE"))
  })
})

/** {@link layer} from the environment variables of extensions.md. */
export const layerConfig: Layer.Layer<Services, StartupError | Config.ConfigError> = Layer.unwrap(
  Effect.map(OptionsConfig, layer)
)
