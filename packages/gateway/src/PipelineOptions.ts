/**
 * What the gateway pipeline is built from (`Pipeline.layer`): one options object, or the
 * environment variables of extensions.md ("Running it") read by {@link OptionsConfig}.
 */
import type { JwtVerifier } from "@switchyard/auth"
import { TrustedHosts } from "@switchyard/core"
import { RequestLog } from "@switchyard/request-log"
import { ResponseRetention } from "@switchyard/responses-format"
import type { SqliteClient } from "@switchyard/storage"
import type { UsageLimits } from "@switchyard/usage-limits"
import { Config, ConfigProvider, Effect, Option, type Redacted, Schema } from "effect"

export interface Options {
  /** The SQLite database and the generated secret live here (default `./.switchyard`). */
  readonly dataDir?: string | undefined
  /**
   * How the SQLite database's commits wait for the disk (`GATEWAY_SQLITE_SYNCHRONOUS`): `normal`
   * (default) syncs at checkpoints, so a crash of the process loses nothing and a power loss may
   * take the last commits with it; `full` syncs every commit, at the cost of an `fsync` on the
   * event loop for each (a stored Responses answer: about twice the CPU). Not used with Postgres.
   */
  readonly sqliteSynchronous?: SqliteClient.Synchronous | undefined
  /** `postgres://…`: durable state in Postgres instead of SQLite; needs `secret`. */
  readonly databaseUrl?: Redacted.Redacted<string> | undefined
  /** `redis://…`: cache entries and circuits in Redis, shared by replicas; memory without it. */
  readonly redisUrl?: Redacted.Redacted<string> | undefined
  /**
   * How long a cache or circuit operation may wait on Redis before the store counts Redis as down
   * and answers without it (`GATEWAY_REDIS_DEADLINE_MS`; default 150, within extensions.md's 250 ms).
   */
  readonly redisDeadlineMs?: number | undefined
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
  /** How long stored Responses are kept (`GATEWAY_RESPONSES_RETENTION_DAYS`; default 30). */
  readonly responses?: ResponseRetention.Options | undefined
}

/** Where the SQLite database and the generated secret live unless told otherwise. */
export const DEFAULT_DATA_DIR = "./.switchyard"

/** How SQLite's commits wait for the disk unless told otherwise (see `Options.sqliteSynchronous`). */
export const DEFAULT_SQLITE_SYNCHRONOUS: SqliteClient.Synchronous = "normal"

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
  sqliteSynchronous: Config.Literals(["normal", "full"], "GATEWAY_SQLITE_SYNCHRONOUS").pipe(
    Config.withDefault(DEFAULT_SQLITE_SYNCHRONOUS)
  ),
  databaseUrl: optional(Config.Redacted("DATABASE_URL")),
  redisUrl: optional(Config.Redacted("REDIS_URL")),
  redisDeadlineMs: optional(atLeastOne("GATEWAY_REDIS_DEADLINE_MS")),
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
  responses: ResponseRetention.OptionsConfig,
  jwt: Config.all({
    jwksUrl: optional(Config.String("GATEWAY_JWKS_URL")),
    jwksFile: optional(Config.String("GATEWAY_JWKS_FILE")),
    issuer: optional(Config.String("GATEWAY_JWT_ISSUER")),
    audience: optional(Config.String("GATEWAY_JWT_AUDIENCE"))
  })
})
