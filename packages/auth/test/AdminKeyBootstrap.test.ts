import { assert, describe, it } from "@effect/vitest"
import { AdminKeyBootstrap, ApiKeys, ServerSecret } from "@switchyard/auth"
import { Migrations } from "@switchyard/storage"
import { TestDatabase } from "@switchyard/storage/testing"
import { Context, Effect, Layer, Option, Redacted } from "effect"

const DEFAULT_WORKSPACE = Migrations.DEFAULT_WORKSPACE_ID

/** One gateway start over the given database: its own ApiKeys, then the bootstrap; answers what it announced. */
const start = <R>(database: Context.Context<R>, adminKey: Option.Option<Redacted.Redacted<string>>) =>
  Effect.gen(function*() {
    const announced: Array<string> = []
    const bootstrap = AdminKeyBootstrap.layer({
      adminKey,
      announce: (key) => Effect.sync(() => announced.push(key))
    })
    const context = yield* Layer.build(
      Layer.fresh(bootstrap).pipe(Layer.provideMerge(Layer.fresh(ApiKeys.ApiKeys.layer)))
    ).pipe(Effect.provideContext(database))
    return { announced, apiKeys: Context.get(context, ApiKeys.ApiKeys) }
  })

const secret = ServerSecret.ServerSecret.layerSecret("bootstrap test secret")

describe("AdminKeyBootstrap", () => {
  for (const { name, layer: dialect } of TestDatabase.dialects) {
    const freshDatabase = Layer.build(Layer.merge(dialect, secret))

    it.effect(`on ${name}: with GATEWAY_ADMIN_KEY set, creates and announces nothing`, () =>
      Effect.gen(function*() {
        const database = yield* freshDatabase
        const { announced, apiKeys } = yield* start(database, Option.some(Redacted.make("configured admin key")))
        assert.deepStrictEqual(announced, [])
        assert.strictEqual(yield* apiKeys.count, 0)
      }))

    it.effect(`on ${name}: without it, creates one admin key in the default workspace and announces it once`, () =>
      Effect.gen(function*() {
        const database = yield* freshDatabase
        const { announced, apiKeys } = yield* start(database, Option.none())
        assert.strictEqual(announced.length, 1)
        const [key = ""] = announced
        assert.match(key, /^sy-/)
        assert.strictEqual(yield* apiKeys.count, 1)
        const [stored] = yield* apiKeys.list(DEFAULT_WORKSPACE)
        assert.strictEqual(stored?.name, "admin")
        assert.deepStrictEqual(stored?.scopes, ["admin"])
        assert.strictEqual(stored?.expires_at, null)
        const principal = Option.getOrThrow(yield* apiKeys.verify(key))
        assert.strictEqual(principal.keyId, stored?.id)
        assert.strictEqual(principal.workspaceId, DEFAULT_WORKSPACE)
        assert.deepStrictEqual([...principal.scopes], ["admin"])
      }))

    it.effect(`on ${name}: a second start over the same database announces nothing and keeps the first key`, () =>
      Effect.gen(function*() {
        const database = yield* freshDatabase
        const first = yield* start(database, Option.none())
        const second = yield* start(database, Option.none())
        assert.strictEqual(first.announced.length, 1)
        assert.deepStrictEqual(second.announced, [])
        assert.strictEqual(yield* second.apiKeys.count, 1)
        assert.isTrue(Option.isSome(yield* second.apiKeys.verify(first.announced[0] ?? "")))
      }))

    it.effect(`on ${name}: creates nothing when any key exists, even a revoked one`, () =>
      Effect.gen(function*() {
        const database = yield* freshDatabase
        const { apiKeys } = yield* start(database, Option.some(Redacted.make("configured admin key")))
        const created = yield* apiKeys.create({ name: "ci", scopes: ["completions"], workspace_id: DEFAULT_WORKSPACE })
        yield* apiKeys.revoke(DEFAULT_WORKSPACE, created.id)
        const { announced } = yield* start(database, Option.none())
        assert.deepStrictEqual(announced, [])
        assert.strictEqual(yield* apiKeys.count, 1)
      }))
  }
})
