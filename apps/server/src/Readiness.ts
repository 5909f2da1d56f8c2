/**
 * What `GET /ready` answers (extensions.md, "Running it"): whether the stores the server cannot
 * serve without answer now — the database always, Redis when the pipeline keeps its stores there.
 * `/health` stays liveness: a server whose database is down is alive, but not ready.
 */
import { RedisConnection } from "@switchyard/redis"
import { Context, Duration, Effect, Exit, Layer, type Redacted } from "effect"
import { Redis } from "effect/persistence"
import { SqlClient } from "effect/sql"

/** A store that must answer, and how to ask it. */
export interface Check {
  readonly name: string
  readonly probe: Effect.Effect<unknown, unknown>
}

export type State = "ok" | "down"

/** Each store's state, by name, in the order they were checked. */
export type Report = Readonly<Record<string, State>>

/**
 * How long a store may take to answer. A probe that waits longer would hold the orchestrator's
 * probe past its own timeout, which then reports nothing useful.
 */
export const PROBE_TIMEOUT = Duration.seconds(2)

export class Readiness extends Context.Service<Readiness, {
  /** Asks every store at once; a store that fails or does not answer in time is down. */
  readonly check: Effect.Effect<Report>
}>()("@switchyard/server/Readiness") {}

/**
 * Readiness over `checks`. Why a store is down is logged, not answered: `/ready` needs no key, and
 * a connection error names hosts and ports.
 *
 * @example
 * const readiness = Readiness.make([{ name: "database", probe: Effect.void }])
 * readiness.check // Effect<{ database: "ok" }>
 */
export const make = (checks: ReadonlyArray<Check>): Readiness["Service"] =>
  Readiness.of({
    check: Effect.forEach(
      checks,
      ({ name, probe }): Effect.Effect<readonly [string, State]> =>
        probe.pipe(
          Effect.timeout(PROBE_TIMEOUT),
          Effect.exit,
          Effect.flatMap((exit): Effect.Effect<readonly [string, State]> =>
            Exit.isSuccess(exit)
              ? Effect.succeed([name, "ok"])
              : Effect.logWarning(`readiness: ${name} is down`, exit.cause).pipe(Effect.as([name, "down"]))
          )
        ),
      { concurrency: "unbounded" }
    ).pipe(Effect.map((states): Report => Object.fromEntries(states)))
  })

/** The names of the stores that are down, in the order they were checked. */
export const down = (report: Report): ReadonlyArray<string> =>
  Object.entries(report).flatMap(([name, state]) => state === "down" ? [name] : [])

const database = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return { name: "database", probe: sql`SELECT 1` } satisfies Check
})

/**
 * The server's readiness: its database (SQLite or Postgres, the pipeline's `SqlClient`), and Redis
 * at `redisUrl` when one is set. Redis is asked over a connection of its own, which fails at once
 * while Redis is unreachable and reconnects in the background, like the stores' connections.
 */
export const layer = (
  options: { readonly redisUrl?: Redacted.Redacted<string> | undefined }
): Layer.Layer<Readiness, Redis.RedisError, SqlClient.SqlClient> =>
  options.redisUrl === undefined
    ? Layer.effect(Readiness, Effect.map(database, (check) => make([check])))
    : Layer.effect(
      Readiness,
      Effect.gen(function*() {
        const redis = yield* Redis.Redis
        return make([yield* database, { name: "redis", probe: redis.send("PING") }])
      })
    ).pipe(Layer.provide(RedisConnection.layer({ url: options.redisUrl })))
