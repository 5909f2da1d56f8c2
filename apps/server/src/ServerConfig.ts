/**
 * The server's settings, read from the environment once at start-up (extensions.md, "Running it").
 */
import { TrustedHosts } from "@switchyard/core"
import { Config, ConfigProvider, Effect, Option } from "effect"

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

export const ServerConfig = Config.all({
  host: Config.String("HOST").pipe(Config.withDefault("127.0.0.1")),
  port: Config.Port("PORT").pipe(Config.withDefault(8787)),
  dataDir: Config.String("GATEWAY_DATA_DIR").pipe(Config.withDefault("./.switchyard")),
  adminKey: Config.Redacted("GATEWAY_ADMIN_KEY").pipe(Config.option),
  secret: Config.Redacted("GATEWAY_SECRET").pipe(Config.option),
  databaseUrl: Config.Redacted("DATABASE_URL").pipe(Config.option),
  cacheEmbeddingModel: Config.String("GATEWAY_CACHE_EMBEDDING_MODEL").pipe(Config.option),
  maxBodyBytes: Config.Int("GATEWAY_MAX_BODY").pipe(Config.withDefault(10 * 1024 * 1024)),
  shutdownGraceSeconds: Config.Int("GATEWAY_SHUTDOWN_GRACE_SECONDS").pipe(Config.withDefault(30)),
  headersTimeoutSeconds: Config.Int("GATEWAY_HEADERS_TIMEOUT_SECONDS").pipe(Config.withDefault(30)),
  bodyTimeoutSeconds: Config.Int("GATEWAY_BODY_TIMEOUT_SECONDS").pipe(Config.withDefault(60)),
  trustedHosts
})

export type ServerConfig = Config.Success<typeof ServerConfig>
