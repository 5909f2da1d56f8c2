/**
 * Provider integrations: named credentials a request selects with `@slug` (in
 * `x-gateway-provider` or in the model, `@slug/model`). Credentials are sealed at rest and never
 * returned; a listing shows the non-secret fields and a hint of each secret.
 */
import { ServerSecret, StoredRow } from "@switchyard/auth"
import { GatewayError, ShortLivedCache, TrustedHosts } from "@switchyard/core"
import { StoredObjectRequests } from "@switchyard/protocol"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { randomBytes } from "node:crypto"
import * as CallerUrls from "./internal/CallerUrls.ts"
import { type Credentials, credentialsOf, open, seal, visibleSettings } from "./StoredCredentials.ts"

export interface Integration {
  readonly id: string
  readonly object: "integration"
  readonly slug: string
  readonly provider: string
  readonly name: string | null
  readonly workspace_id: string
  readonly created_at: number
  readonly updated_at: number
  /** Non-secret fields as stored; secrets as `****` plus their last four characters. */
  readonly settings: Readonly<Record<string, unknown>>
}

/** What a request resolves `@slug` to. */
export interface ResolvedIntegration {
  readonly id: string
  readonly provider: string
  readonly credentials: Credentials
  /** Changes with every update, so a compiled config keyed by it is never stale. */
  readonly version: number
  /** The integration's own prices, when it has them (usage limits price its calls with them). */
  readonly pricing?: StoredObjectRequests.IntegrationPricing | undefined
}

/** The prices kept in an integration's visible settings; none when absent or not prices. */
const decodePricing = Schema.decodeUnknownOption(
  Schema.Struct({ pricing: StoredObjectRequests.IntegrationPricing })
)

const Row = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  slug: Schema.String,
  provider: Schema.String,
  name: Schema.NullOr(Schema.String),
  credentials: Schema.String,
  settings: Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown)),
  created_at: StoredRow.Timestamp,
  updated_at: StoredRow.Timestamp
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))

/** What an integration shows besides its masked credentials: its prices, which are no secret. */
const settingsOf = (
  credentials: Readonly<Record<string, unknown>>,
  pricing: StoredObjectRequests.IntegrationPricing | undefined
): Record<string, unknown> => ({ ...visibleSettings(credentials), ...(pricing === undefined ? {} : { pricing }) })

const taken = (slug: string) => new GatewayError.Conflict({ message: `slug: "${slug}" is taken`, param: "slug" })

const toIntegration = (row: typeof Row.Type): Integration => ({
  id: row.id,
  object: "integration",
  slug: row.slug,
  provider: row.provider,
  name: row.name,
  workspace_id: row.workspace_id,
  created_at: row.created_at,
  updated_at: row.updated_at,
  settings: row.settings
})

export class Integrations extends Context.Service<Integrations, {
  readonly create: (
    workspaceId: string,
    body: StoredObjectRequests.CreateIntegration
  ) => Effect.Effect<Integration, GatewayError.InvalidRequest | GatewayError.Conflict | GatewayError.InternalError>
  readonly list: (workspaceId: string) => Effect.Effect<ReadonlyArray<Integration>, GatewayError.InternalError>
  /** By id or slug. */
  readonly get: (
    workspaceId: string,
    idOrSlug: string
  ) => Effect.Effect<Integration, GatewayError.NotFound | GatewayError.InternalError>
  readonly remove: (
    workspaceId: string,
    idOrSlug: string
  ) => Effect.Effect<Integration, GatewayError.NotFound | GatewayError.InternalError>
  readonly resolve: (
    workspaceId: string,
    slug: string
  ) => Effect.Effect<Option.Option<ResolvedIntegration>, GatewayError.InternalError>
}>()("@switchyard/provider-access/Integrations") {
  static readonly layer: Layer.Layer<Integrations, never, SqlClient.SqlClient | ServerSecret.ServerSecret> = Layer
    .effect(
      Integrations,
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const secret = yield* ServerSecret.ServerSecret
        const hosts = yield* TrustedHosts.TrustedHosts
        const internal = StoredRow.orInternal("integrations")
        const resolved = new ShortLivedCache.ShortLivedCache<Option.Option<ResolvedIntegration>>({
          capacity: 4096,
          ttlMs: 2_000
        })
        const select = (where: Statement.Fragment) =>
          sql`SELECT id, workspace_id, slug, provider, name, credentials, settings, created_at, updated_at FROM integrations WHERE ${where}`
            .pipe(Effect.flatMap(decodeRows))
        const byIdOrSlug = (workspaceId: string, idOrSlug: string) =>
          select(sql`workspace_id = ${workspaceId} AND (id = ${idOrSlug} OR slug = ${idOrSlug})`).pipe(
            internal,
            Effect.flatMap(([row]) =>
              row === undefined
                ? Effect.fail(new GatewayError.NotFound({ message: `integration ${idOrSlug} not found` }))
                : Effect.succeed(row)
            )
          )

        return Integrations.of({
          create: (workspaceId, body) =>
            Effect.gen(function*() {
              const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
              const credentials = credentialsOf(body)
              yield* CallerUrls.check(hosts, CallerUrls.ofCredentials(credentials))
              const row = {
                id: `int_${randomBytes(12).toString("hex")}`,
                workspace_id: workspaceId,
                slug: body.slug,
                provider: body.provider,
                name: body.name ?? null,
                credentials: seal(secret, credentials),
                settings: JSON.stringify(settingsOf(credentials, body.pricing)),
                created_at: now,
                updated_at: now,
                deleted_at: null
              }
              const inserted = yield* sql.withTransaction(
                Effect.andThen(
                  StoredRow.ensureWorkspace(sql, workspaceId, now),
                  sql`INSERT INTO integrations ${sql.insert(row)}`
                )
              ).pipe(
                Effect.as(true),
                // two creates of one slug at once: the database's unique index settles the race
                Effect.catchIf(
                  (error) => error.reason._tag === "UniqueViolation",
                  () => Effect.succeed(false)
                ),
                internal
              )
              if (!inserted) return yield* taken(body.slug)
              resolved.invalidate(`${workspaceId}\n${body.slug}`)
              return toIntegration({ ...row, settings: settingsOf(credentials, body.pricing) })
            }),
          list: (workspaceId) =>
            select(sql`workspace_id = ${workspaceId} ORDER BY created_at DESC, id`).pipe(
              Effect.map((rows) => rows.map(toIntegration)),
              internal
            ),
          get: (workspaceId, idOrSlug) => Effect.map(byIdOrSlug(workspaceId, idOrSlug), toIntegration),
          remove: (workspaceId, idOrSlug) =>
            Effect.gen(function*() {
              const row = yield* byIdOrSlug(workspaceId, idOrSlug)
              yield* sql`DELETE FROM integrations WHERE id = ${row.id}`.pipe(internal)
              resolved.invalidate(`${workspaceId}\n${row.slug}`)
              return toIntegration(row)
            }),
          resolve: (workspaceId, slug) =>
            resolved.through(
              `${workspaceId}\n${slug}`,
              () =>
                Effect.gen(function*() {
                  const [row] = yield* select(sql`workspace_id = ${workspaceId} AND slug = ${slug}`).pipe(internal)
                  if (row === undefined) return Option.none()
                  const credentials = yield* open(secret, row.credentials)
                  const pricing = Option.getOrUndefined(
                    Option.map(decodePricing(row.settings), (found) => found.pricing)
                  )
                  return Option.some({
                    id: row.id,
                    provider: row.provider,
                    credentials,
                    version: row.updated_at,
                    pricing
                  })
                })
            )
        })
      })
    )
}
