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
import { Embedder } from "@switchyard/cache"
import type { CircuitBoard } from "@switchyard/circuit-breaker"
import { type Gateway, type GatewayError, type ProviderRegistry, type Stage, TrustedHosts } from "@switchyard/core"
import { FileContents, FileStore } from "@switchyard/files"
import { type Feedback, FeedbackSql, StoredGuardrails } from "@switchyard/guardrails"
import { PromptStore } from "@switchyard/prompts"
import { type Integrations, ProviderAccess, type StoredConfigs, type VirtualKeys } from "@switchyard/provider-access"
import { Providers, UpstreamClient } from "@switchyard/providers"
import { RecordedGateway, RequestLog, RequestLogStore } from "@switchyard/request-log"
import { ResponseRetention, ResponseStore } from "@switchyard/responses-format"
import { Database, SqliteWriter } from "@switchyard/storage"
import { RatePolicies, UsageCounters, UsagePolicies } from "@switchyard/usage-limits"
import { type Config, Data, Duration, Effect, Layer, Option } from "effect"
import type { Redis } from "effect/persistence"
import type { SqlClient } from "effect/sql"
import { join } from "node:path"
import * as GatewayEmbedder from "./internal/GatewayEmbedder.ts"
import { gateway } from "./internal/RequestPipeline.ts"
import {
  cacheAndCircuits,
  type CountersLayer,
  MissingRedisPackage,
  onWriterThreadOf,
  usageCounters
} from "./internal/SharedStores.ts"
import { DEFAULT_DATA_DIR, DEFAULT_SQLITE_SYNCHRONOUS, type Options, OptionsConfig } from "./PipelineOptions.ts"

export { MissingRedisPackage } from "./internal/SharedStores.ts"
export { type Options, OptionsConfig } from "./PipelineOptions.ts"

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
    Database.layer({
      databaseUrl,
      dataDir,
      sqliteSynchronous: options.sqliteSynchronous ?? DEFAULT_SQLITE_SYNCHRONOUS
    }),
    ServerSecret.ServerSecret.layer({ secret, dataDir })
  )
  const identity = Layer.mergeAll(
    Authenticator.Authenticator.layer({ adminKey }),
    AdminKeyBootstrap.layer({ adminKey, announce: options.announceAdminKey ?? printAdminKey })
  ).pipe(Layer.provideMerge(ApiKeys.ApiKeys.layer), Layer.provide(JwtVerifier.layer(options.jwt ?? {})))
  // on the embedded SQLite, the request log, stored responses, usage counters and feedback are
  // written by one thread with a connection of its own (built once, shared): node:sqlite would block
  // the event loop
  const sqliteWriter = SqliteWriter.SqliteWriter.layer({
    filename: join(dataDir, Database.SQLITE_FILE),
    synchronous: options.sqliteSynchronous ?? DEFAULT_SQLITE_SYNCHRONOUS
  })
  const onWriterThread = onWriterThreadOf(sqliteWriter)
  const lease = options.limitsReservationLeaseSeconds
  const counters: CountersLayer = lease === undefined
    ? usageCounters(options, onWriterThread)
    : usageCounters(options, onWriterThread).pipe(
      Layer.provide(Layer.succeed(UsageCounters.ReservationLease, Duration.seconds(lease)))
    )
  // one set, built once, for the stages and the route that lists circuits
  const stores = cacheAndCircuits(options)
  // one writer, built once: the HTTP edge and the in-process calls record into its one buffer
  const requestLog = RequestLog.RequestLog.layer(options.requestLog).pipe(
    Layer.provideMerge(
      onWriterThread(RequestLogStore.RequestLogStore.layerSqliteWriter, RequestLogStore.RequestLogStore.layerSql)
    )
  )
  const responseStore = onWriterThread(
    ResponseStore.ResponseStore.layerSqliteWriter,
    ResponseStore.ResponseStore.layer
  )
  // stored responses are kept for a while, not for ever: the API stores by default
  const responses = Layer.merge(
    responseStore,
    ResponseRetention.layer(options.responses).pipe(Layer.provide(responseStore))
  )
  const guardrailStorage = Layer.mergeAll(
    StoredGuardrails.StoredGuardrails.layer,
    onWriterThread(FeedbackSql.layerSqliteWriter, FeedbackSql.layerSql),
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
    Layer.mergeAll(assistants, batches, responses),
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

/** {@link layer} from the environment variables of extensions.md. */
export const layerConfig: Layer.Layer<Services, StartupError | Config.ConfigError> = Layer.unwrap(
  Effect.map(OptionsConfig, layer)
)
