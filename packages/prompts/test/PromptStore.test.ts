import { assert, layer } from "@effect/vitest"
import { GatewayError } from "@switchyard/core"
import { PromptStore } from "@switchyard/prompts"
import type { ListQuery, PromptTemplate } from "@switchyard/protocol"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"

const definition = {
  model: "gpt-4o-mini",
  template: [{ role: "user", content: "Hello {{name}}" }],
  parameters: { temperature: 0.5 }
} satisfies PromptTemplate.PromptDefinition

const store = Effect.gen(function*() {
  return yield* PromptStore.PromptStore
})

const create = (workspaceId: string, name = "greeting", more: Partial<PromptTemplate.CreatePrompt> = {}) =>
  Effect.flatMap(store, (prompts) => prompts.create(workspaceId, { name, ...definition, ...more }))

const page = (workspaceId: string, query: Partial<ListQuery.ListQuery> = {}) =>
  Effect.flatMap(store, (prompts) => prompts.list(workspaceId, { limit: 20, order: "desc", ...query }))

/** The field a 400 names, or the tag of any other error: a test then fails naming what came instead. */
const paramOf = (error: GatewayError.GatewayError) =>
  error instanceof GatewayError.InvalidRequest ? error.param : error._tag

const firstPage: ListQuery.ListQuery = { limit: 20, order: "desc" }

const ids = (prompts: ReadonlyArray<{ readonly id: string }>) => prompts.map((prompt) => prompt.id)

for (const { name, layer: database } of TestDatabase.dialects) {
  layer(PromptStore.PromptStore.layer.pipe(Layer.provideMerge(database)))(`PromptStore on ${name}`, (it) => {
    it.effect("creates a prompt whose version 1 is published and latest", () =>
      Effect.gen(function*() {
        const created = yield* create("ws-create")
        assert.match(created.id, /^pp-[0-9a-f]{18}$/)
        assert.deepStrictEqual(
          { ...created, id: "", created_at: 0, updated_at: 0 },
          {
            ...definition,
            id: "",
            object: "prompt",
            name: "greeting",
            workspace_id: "ws-create",
            published_version: 1,
            latest_version: 1,
            created_at: 0,
            updated_at: 0
          }
        )
        assert.deepStrictEqual(yield* (yield* store).get("ws-create", created.id), created)
      }))

    it.effect("numbers versions 2, 3… and never changes an older one", () =>
      Effect.gen(function*() {
        const prompts = yield* store
        const created = yield* create("ws-versions")
        const second = yield* prompts.addVersion("ws-versions", created.id, {
          template: [{ role: "user", content: "v2" }]
        })
        const third = yield* prompts.addVersion("ws-versions", created.id, { ...definition, model: "gpt-4o" })
        assert.deepStrictEqual([second.version, third.version], [2, 3])
        assert.strictEqual(second.id, `${created.id}@2`)
        const versions = (yield* prompts.versions("ws-versions", created.id, firstPage)).data
        assert.deepStrictEqual(versions.map((v) => v.version), [3, 2, 1])
        assert.deepStrictEqual(versions[2]?.template, definition.template)
        assert.strictEqual(versions[1]?.model, undefined)
        assert.deepStrictEqual(versions.map((v) => v.published), [false, false, true])
        const read = yield* prompts.get("ws-versions", created.id)
        assert.deepStrictEqual([read.published_version, read.latest_version], [1, 3])
      }))

    it.effect("gives concurrent writers distinct version numbers", () =>
      Effect.gen(function*() {
        const prompts = yield* store
        const created = yield* create("ws-concurrent")
        const added = yield* Effect.all(
          Array.from({ length: 8 }, () => prompts.addVersion("ws-concurrent", created.id, definition)),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(added.map((v) => v.version).sort((a, b) => a - b), [2, 3, 4, 5, 6, 7, 8, 9])
      }))

    it.effect("resolves the published version, @latest and @N; publish moves the first", () =>
      Effect.gen(function*() {
        const prompts = yield* store
        const created = yield* create("ws-resolve")
        yield* prompts.addVersion("ws-resolve", created.id, { ...definition, model: "second" })
        const resolve = (version: PromptStore.VersionSelector) =>
          Effect.map(prompts.resolve("ws-resolve", { id: created.id, version }), (v) => v.version)
        assert.deepStrictEqual(yield* Effect.all([resolve("published"), resolve("latest"), resolve(1)]), [1, 2, 1])
        const published = yield* prompts.publish("ws-resolve", created.id, 2)
        assert.strictEqual(published.model, "second")
        assert.strictEqual(yield* resolve("published"), 2)
        assert.instanceOf(yield* Effect.flip(resolve(3)), GatewayError.NotFound)
        const refused = yield* Effect.flip(prompts.publish("ws-resolve", created.id, 3))
        assert.instanceOf(refused, GatewayError.InvalidRequest)
      }))

    it.effect("parses references: no suffix, @latest, @N; another suffix is a 400", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* PromptStore.parseReference("pp-1"), { id: "pp-1", version: "published" })
        assert.deepStrictEqual(yield* PromptStore.parseReference("pp-1@latest"), { id: "pp-1", version: "latest" })
        assert.deepStrictEqual(yield* PromptStore.parseReference("pp-1@12"), { id: "pp-1", version: 12 })
        for (const bad of ["pp-1@0", "pp-1@", "pp-1@v2", "pp-1@-1"]) {
          const error = yield* Effect.flip(PromptStore.parseReference(bad))
          assert.strictEqual(error.param, "promptId", bad)
        }
      }))

    it.effect("keeps workspaces apart: another workspace's id is a 404 everywhere", () =>
      Effect.gen(function*() {
        const prompts = yield* store
        const created = yield* create("ws-mine")
        const other = "ws-theirs"
        for (
          const attempt of [
            Effect.asVoid(prompts.get(other, created.id)),
            Effect.asVoid(prompts.versions(other, created.id, firstPage)),
            Effect.asVoid(prompts.addVersion(other, created.id, definition)),
            Effect.asVoid(prompts.publish(other, created.id, 1)),
            Effect.asVoid(prompts.remove(other, created.id)),
            Effect.asVoid(prompts.resolve(other, { id: created.id, version: "latest" }))
          ]
        ) {
          assert.instanceOf(yield* Effect.flip(attempt), GatewayError.NotFound)
        }
        assert.strictEqual((yield* page(other)).data.length, 0)
        assert.strictEqual((yield* prompts.get("ws-mine", created.id)).latest_version, 1)
      }))

    it.effect("deletes a prompt: it is gone from get, list and resolve", () =>
      Effect.gen(function*() {
        const prompts = yield* store
        const created = yield* create("ws-delete")
        yield* prompts.remove("ws-delete", created.id)
        assert.instanceOf(yield* Effect.flip(prompts.get("ws-delete", created.id)), GatewayError.NotFound)
        assert.instanceOf(
          yield* Effect.flip(prompts.resolve("ws-delete", { id: created.id, version: 1 })),
          GatewayError.NotFound
        )
        assert.deepStrictEqual((yield* page("ws-delete")).data, [])
      }))

    it.effect("pages through the list in creation order, both ways, with after and before", () =>
      Effect.gen(function*() {
        const made: Array<string> = []
        for (const n of [1, 2, 3, 4, 5]) {
          made.push((yield* create("ws-pages", `p${n}`)).id)
          // two of them in the same second: the order still follows creation
          if (n % 2 === 0) yield* TestClock.adjust("1 second")
        }
        const newestFirst = [...made].reverse()
        const first = yield* page("ws-pages", { limit: 2 })
        assert.deepStrictEqual(ids(first.data), newestFirst.slice(0, 2))
        assert.deepStrictEqual([first.first_id, first.last_id, first.has_more], [made[4], made[3], true])
        const second = yield* page("ws-pages", { limit: 2, after: made[3] ?? "" })
        assert.deepStrictEqual(ids(second.data), newestFirst.slice(2, 4))
        const last = yield* page("ws-pages", { limit: 2, after: made[1] ?? "" })
        assert.deepStrictEqual([ids(last.data), last.has_more], [[made[0]], false])
        const back = yield* page("ws-pages", { limit: 2, before: made[1] ?? "" })
        assert.deepStrictEqual([ids(back.data), back.has_more], [newestFirst.slice(1, 3), true])
        const ascending = yield* page("ws-pages", { order: "asc", limit: 3, after: made[0] ?? "" })
        assert.deepStrictEqual(ids(ascending.data), made.slice(1, 4))
        assert.strictEqual(paramOf(yield* Effect.flip(page("ws-pages", { after: "pp-unknown" }))), "after")
      }))

    it.effect("pages through the versions with version ids as cursors", () =>
      Effect.gen(function*() {
        const prompts = yield* store
        const created = yield* create("ws-version-pages")
        for (let n = 0; n < 4; n++) yield* prompts.addVersion("ws-version-pages", created.id, definition)
        const versions = (query: Partial<ListQuery.ListQuery>) =>
          Effect.map(
            prompts.versions("ws-version-pages", created.id, { ...firstPage, ...query }),
            (page) => [page.data.map((v) => v.version), page.has_more, page.first_id, page.last_id] as const
          )
        assert.deepStrictEqual(yield* versions({ limit: 2 }), [[5, 4], true, `${created.id}@5`, `${created.id}@4`])
        assert.deepStrictEqual((yield* versions({ limit: 2, after: `${created.id}@4` }))[0], [3, 2])
        assert.deepStrictEqual((yield* versions({ after: `${created.id}@2` })).slice(0, 2), [[1], false])
        assert.deepStrictEqual((yield* versions({ limit: 2, before: `${created.id}@2` })).slice(0, 2), [[4, 3], true])
        assert.deepStrictEqual((yield* versions({ order: "asc", limit: 2, after: `${created.id}@1` }))[0], [2, 3])
        assert.deepStrictEqual((yield* versions({ order: "asc", before: `${created.id}@3` }))[0], [1, 2])
        const foreign = yield* Effect.flip(versions({ after: "pp-other@2" }))
        assert.strictEqual(paramOf(foreign), "after")
      }))

    it.effect("refuses a template that does not parse and parameters out of bounds, naming them", () =>
      Effect.gen(function*() {
        const unparsed = yield* Effect.flip(create("ws-bad", "bad", {
          template: [{ role: "user", content: "ok" }, { role: "user", content: "{{#open}}" }]
        }))
        assert.strictEqual(paramOf(unparsed), "template[1].content")
        const bounds = yield* Effect.flip(create("ws-bad", "bad", { parameters: { top_p: 2 } }))
        assert.strictEqual(paramOf(bounds), "parameters.top_p")
        assert.deepStrictEqual((yield* page("ws-bad")).data, [])
      }))
  })
}
