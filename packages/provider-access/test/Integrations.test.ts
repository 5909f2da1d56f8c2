import { assert, layer } from "@effect/vitest"
import { ServerSecret } from "@switchyard/auth"
import { GatewayError } from "@switchyard/core"
import { Integrations } from "@switchyard/provider-access"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import {
  API_KEY,
  assertNoSecretIn,
  CLOUD_SECRET,
  cloudCredentials,
  column,
  DEFAULT_WORKSPACE,
  deleteRow,
  OTHER_WORKSPACE,
  PRIVATE_KEY,
  repositoriesOn,
  SERVICE_ACCOUNT
} from "./support/Fixtures.ts"

const integrations = <A, E>(use: (service: Integrations.Integrations["Service"]) => Effect.Effect<A, E>) =>
  Integrations.Integrations.use(use)

const create = (slug: string, workspaceId = DEFAULT_WORKSPACE) =>
  integrations((service) =>
    service.create(workspaceId, { slug, provider: "openai", name: `team ${slug}`, ...cloudCredentials })
  )

const resolve = (slug: string, workspaceId = DEFAULT_WORKSPACE) =>
  integrations((service) => service.resolve(workspaceId, slug))

for (const { name, layer: database } of TestDatabase.dialects) {
  layer(repositoriesOn(database))(`Integrations on ${name}`, (it) => {
    it.effect("create answers the integration with its slug, provider, workspace and times", () =>
      Effect.gen(function*() {
        const created = yield* create("created")
        assert.match(created.id, /^int_[0-9a-f]{24}$/)
        assert.strictEqual(created.object, "integration")
        assert.strictEqual(created.slug, "created")
        assert.strictEqual(created.provider, "openai")
        assert.strictEqual(created.name, "team created")
        assert.strictEqual(created.workspace_id, DEFAULT_WORKSPACE)
        assert.strictEqual(created.created_at, created.updated_at)
      }))

    it.effect("settings show the non-secret fields and a masked hint of each secret", () =>
      Effect.gen(function*() {
        const created = yield* create("masked")
        assert.deepStrictEqual(created.settings, {
          api_key: "****abcd",
          custom_host: "https://llm.internal.example/v1",
          cloud1_access_key_id: "AKIAEXAMPLE",
          cloud1_secret_access_key: "****wxyz",
          cloud1_session_token: "****tokn",
          cloud1_region: "eu-west-1",
          cloud2_project_id: "project-1",
          cloud2_service_account_json: "****"
        })
      }))

    it.effect("a short secret is masked without any of its characters", () =>
      Effect.gen(function*() {
        const created = yield* integrations((service) =>
          service.create(DEFAULT_WORKSPACE, { slug: "short", provider: "openai", api_key: "sk-abc" })
        )
        assert.deepStrictEqual(created.settings, { api_key: "****" })
      }))

    it.effect("no secret is in what create, list or get answer", () =>
      Effect.gen(function*() {
        const created = yield* create("secretive")
        assertNoSecretIn(created)
        assertNoSecretIn(yield* integrations((service) => service.list(DEFAULT_WORKSPACE)))
        assertNoSecretIn(yield* integrations((service) => service.get(DEFAULT_WORKSPACE, created.id)))
        assertNoSecretIn(yield* integrations((service) => service.get(DEFAULT_WORKSPACE, "secretive")))
        assertNoSecretIn(yield* integrations((service) => service.remove(DEFAULT_WORKSPACE, created.id)))
      }))

    it.effect("the credentials column holds a sealed value, not the secrets", () =>
      Effect.gen(function*() {
        const created = yield* create("sealed")
        const credentials = yield* column("integrations", "credentials", created.id)
        assert.isString(credentials)
        assert.match(String(credentials), /^v1\./)
        for (const secret of [API_KEY, CLOUD_SECRET, PRIVATE_KEY, "AKIAEXAMPLE"]) {
          assert.notInclude(String(credentials), secret)
        }
        assertNoSecretIn(yield* column("integrations", "settings", created.id))
      }))

    it.effect("list shows the workspace's integrations, newest first", () =>
      Effect.gen(function*() {
        const older = yield* create("listed-older", "ws-list")
        yield* TestClock.adjust("1 second")
        const newer = yield* create("listed-newer", "ws-list")
        const listed = yield* integrations((service) => service.list("ws-list"))
        assert.deepStrictEqual(listed, [newer, older])
      }))

    it.effect("get finds an integration by id and by slug", () =>
      Effect.gen(function*() {
        const created = yield* create("findable")
        assert.deepStrictEqual(yield* integrations((service) => service.get(DEFAULT_WORKSPACE, created.id)), created)
        assert.deepStrictEqual(yield* integrations((service) => service.get(DEFAULT_WORKSPACE, "findable")), created)
      }))

    it.effect("get of an unknown id or slug is NotFound", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(integrations((service) => service.get(DEFAULT_WORKSPACE, "nothing-here")))
        assert.instanceOf(error, GatewayError.NotFound)
      }))

    it.effect("remove deletes: gone from get, list and resolve", () =>
      Effect.gen(function*() {
        const created = yield* create("removed")
        assert.isTrue(Option.isSome(yield* resolve("removed")))
        const removed = yield* integrations((service) => service.remove(DEFAULT_WORKSPACE, "removed"))
        assert.deepStrictEqual(removed, created)
        assert.strictEqual(
          (yield* Effect.flip(integrations((service) => service.get(DEFAULT_WORKSPACE, created.id))))._tag,
          "NotFound"
        )
        const listed = yield* integrations((service) => service.list(DEFAULT_WORKSPACE))
        assert.isFalse(listed.some((integration) => integration.id === created.id))
        assert.isTrue(Option.isNone(yield* resolve("removed")))
        assert.strictEqual(
          (yield* Effect.flip(integrations((service) => service.remove(DEFAULT_WORKSPACE, created.id))))._tag,
          "NotFound"
        )
      }))

    it.effect("a slug taken in the workspace is a Conflict (409) naming slug", () =>
      Effect.gen(function*() {
        yield* create("taken")
        const error = yield* Effect.flip(create("taken"))
        assert.instanceOf(error, GatewayError.Conflict)
        assert.strictEqual(error.param, "slug")
        assert.strictEqual(GatewayError.toHttp(error).status, 409)
      }))

    it.effect("a removed integration's slug can be taken again", () =>
      Effect.gen(function*() {
        const first = yield* create("reused")
        yield* integrations((service) => service.remove(DEFAULT_WORKSPACE, first.id))
        const second = yield* create("reused")
        assert.notStrictEqual(second.id, first.id)
      }))

    it.effect("the same slug may exist in two workspaces", () =>
      Effect.gen(function*() {
        const mine = yield* create("everywhere")
        const theirs = yield* create("everywhere", OTHER_WORKSPACE)
        assert.notStrictEqual(mine.id, theirs.id)
        assert.strictEqual(theirs.workspace_id, OTHER_WORKSPACE)
      }))

    it.effect("another workspace's integration is NotFound by id or slug, not listed, not resolved", () =>
      Effect.gen(function*() {
        const theirs = yield* create("theirs", OTHER_WORKSPACE)
        for (const idOrSlug of [theirs.id, "theirs"]) {
          assert.strictEqual(
            (yield* Effect.flip(integrations((service) => service.get(DEFAULT_WORKSPACE, idOrSlug))))._tag,
            "NotFound"
          )
          assert.strictEqual(
            (yield* Effect.flip(integrations((service) => service.remove(DEFAULT_WORKSPACE, idOrSlug))))._tag,
            "NotFound"
          )
        }
        const listed = yield* integrations((service) => service.list(DEFAULT_WORKSPACE))
        assert.isFalse(listed.some((integration) => integration.id === theirs.id))
        assert.isTrue(Option.isNone(yield* resolve("theirs")))
        assert.isTrue(Option.isSome(yield* resolve("theirs", OTHER_WORKSPACE)))
      }))

    it.effect("resolve opens the stored credentials", () =>
      Effect.gen(function*() {
        const created = yield* create("resolved")
        const resolved = Option.getOrThrow(yield* resolve("resolved"))
        assert.strictEqual(resolved.id, created.id)
        assert.strictEqual(resolved.provider, "openai")
        assert.strictEqual(resolved.version, created.updated_at)
        assert.deepStrictEqual(resolved.credentials, {
          ...cloudCredentials,
          cloud2_service_account_json: SERVICE_ACCOUNT
        })
      }))

    it.effect("resolve of an unknown slug is none", () =>
      Effect.gen(function*() {
        assert.isTrue(Option.isNone(yield* resolve("never-created")))
      }))

    it.effect("resolve answers from its cache for two seconds, then reads storage again", () =>
      Effect.gen(function*() {
        const created = yield* create("cached")
        assert.isTrue(Option.isSome(yield* resolve("cached")))
        yield* deleteRow("integrations", created.id)
        yield* TestClock.adjust("1999 millis")
        assert.isTrue(Option.isSome(yield* resolve("cached")))
        yield* TestClock.adjust("1 milli")
        assert.isTrue(Option.isNone(yield* resolve("cached")))
      }))

    it.effect("resolve remembers an unknown slug for two seconds, but create makes it known at once", () =>
      Effect.gen(function*() {
        assert.isTrue(Option.isNone(yield* resolve("late")))
        yield* create("late")
        assert.isTrue(Option.isSome(yield* resolve("late")))
      }))

    it.effect("credentials sealed under another server secret fail to open with an InternalError", () =>
      Effect.gen(function*() {
        yield* create("other-secret")
        const error = yield* Effect.flip(
          resolve("other-secret").pipe(
            Effect.provide(
              Layer.fresh(Integrations.Integrations.layer).pipe(
                Layer.provide(ServerSecret.ServerSecret.layerSecret("a different secret"))
              )
            )
          )
        )
        assert.instanceOf(error, GatewayError.InternalError)
        assert.include(error.message, "GATEWAY_SECRET")
      }))

    it.effect("an integration may be created in a workspace that has no row yet", () =>
      Effect.gen(function*() {
        const created = yield* create("first-in-workspace", `ws-new-${name}`)
        assert.strictEqual(created.workspace_id, `ws-new-${name}`)
        assert.isTrue(Option.isSome(yield* resolve("first-in-workspace", `ws-new-${name}`)))
      }))

    it.effect(
      "two concurrent creates of one slug: one succeeds, the other is a Conflict",
      () =>
        Effect.gen(function*() {
          const results = yield* Effect.all([Effect.result(create("raced")), Effect.result(create("raced"))], {
            concurrency: 2
          })
          const tags = results.map((result) => result._tag === "Success" ? "Success" : result.failure._tag).sort()
          assert.deepStrictEqual(tags, ["Conflict", "Success"])
        })
    )
  })
}
