/**
 * The preset as a third-party service uses it: the whole pipeline in process, from one options
 * object, with no HTTP edge. Upstreams are fake providers on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import { Gateway, Principal, RequestContext } from "@switchyard/core"
import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { Pipeline } from "@switchyard/gateway"
import { ResponseObject, ResponsesRequest, ResponseStore } from "@switchyard/responses-format"
import { ConfigProvider, Duration, Effect, Redacted, Result, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const service = Principal.make({ keyId: "billing-service", workspaceId: "default", scopes: ["completions"] })

const chatThrough = (config: unknown) =>
  Effect.gen(function*() {
    const gateway = yield* Gateway.Gateway
    const context = yield* RequestContext.inProcess({
      principal: service,
      headers: { "x-gateway-config": JSON.stringify(config) }
    })
    return yield* gateway.handle({
      endpoint: "chat.completions",
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
      context
    })
  })

const pipelineOptions = (): Pipeline.Options => ({
  dataDir: mkdtempSync(join(tmpdir(), "switchyard-pipeline-")),
  adminKey: Redacted.make("pipeline-test-admin"),
  announceAdminKey: () => Effect.void
})

const embedded = () => Pipeline.layer(pipelineOptions())

describe("Pipeline.layer", () => {
  it.live("runs a chat completion in process through retry, fallback and a circuit breaker", () =>
    Effect.gen(function*() {
      const down = yield* Effect.promise(() => FakeOpenAI.start())
      const up = yield* Effect.promise(() => FakeOpenAI.start())
      yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all([down.close(), up.close()])))
      down.setDefault(Behaviour.json(503, { error: { message: "overloaded" } }))
      const config = {
        strategy: { mode: "fallback" },
        retry: { attempts: 1 },
        cb_config: { failure_threshold: 2, cooldown_interval: 60_000 },
        targets: [
          { provider: "openai", api_key: "sk-down", custom_host: down.baseUrl },
          { provider: "openai", api_key: "sk-up", custom_host: up.baseUrl }
        ]
      }
      const first = yield* chatThrough(config)
      assert.strictEqual(first.status, 200)
      assert.strictEqual(first.headers["x-gateway-last-used-option-index"], "config.targets[1]")
      // one try and one retry on the first target, whose circuit has now opened
      assert.strictEqual(down.requests.length, 2)
      const second = yield* chatThrough(config)
      assert.strictEqual(second.headers["x-gateway-last-used-option-index"], "config.targets[1]")
      assert.strictEqual(down.requests.length, 2)
      assert.strictEqual(up.requests.length, 2)
    }).pipe(Effect.provide(embedded()), Effect.scoped))

  it.effect("syncs SQLite at checkpoints unless told to sync every commit", () =>
    Effect.gen(function*() {
      const level = (options: Pipeline.Options) =>
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ readonly synchronous: number }>`PRAGMA synchronous`).pipe(
          Effect.map((rows) => rows[0]?.synchronous),
          Effect.provide(Pipeline.layer({ ...pipelineOptions(), ...options }))
        )
      // SQLite's levels: 1 NORMAL, 2 FULL
      assert.strictEqual(yield* level({}), 1)
      assert.strictEqual(yield* level({ sqliteSynchronous: "full" }), 2)
    }))

  it.effect("keeps stored responses for the retention period it is given, through its writer thread", () =>
    Effect.gen(function*() {
      const store = yield* ResponseStore.ResponseStore
      const request = Result.getOrThrow(ResponsesRequest.decode({ model: "m", input: "hi" }))
      const save = (id: string, createdAt: number) =>
        store.save("default", { ...ResponseObject.skeleton(request, id, createdAt, "m"), output: [] }, {
          previousResponseId: null,
          items: [],
          inputOffset: 0
        })
      // the test clock starts at 0: one response created two days before, one now
      yield* save("resp_old", -2 * 86_400)
      yield* save("resp_new", 0)
      // the next hourly sweep deletes the one past its day (an hour, not days: the clock runs every
      // background fiber of the pipeline on the way, the batch queue's poll each second among them)
      yield* TestClock.adjust(Duration.hours(1))
      // the sweep's reads and its delete (on the writer thread) run in real time, so the test waits
      // for them on the wall clock, as long as a second, rather than on the test clock
      const isKept = store.get("default", "resp_old").pipe(
        Effect.as(true),
        Effect.catchTag("NotFound", () => Effect.succeed(false))
      )
      const stillKept = yield* isKept.pipe(
        Effect.repeat({ until: (kept) => !kept, schedule: Schedule.spaced(Duration.millis(5)) }),
        Effect.timeoutOrElse({ duration: Duration.seconds(1), orElse: () => Effect.succeed(true) }),
        TestClock.withLive
      )
      assert.isFalse(stillKept)
      assert.strictEqual((yield* store.get("default", "resp_new")).response.id, "resp_new")
    }).pipe(Effect.provide(Pipeline.layer({ ...pipelineOptions(), responses: { retentionDays: 1 } }))))

  it.effect("reads GATEWAY_SQLITE_SYNCHRONOUS: normal by default, full, and nothing else", () =>
    Effect.gen(function*() {
      const read = (env: Record<string, string>) =>
        Pipeline.OptionsConfig.parse(ConfigProvider.fromEnv({ env })).pipe(
          Effect.map((options) => options.sqliteSynchronous)
        )
      assert.strictEqual(yield* read({}), "normal")
      assert.strictEqual(yield* read({ GATEWAY_SQLITE_SYNCHRONOUS: "full" }), "full")
      const refused = yield* Effect.flip(read({ GATEWAY_SQLITE_SYNCHRONOUS: "sometimes" }))
      assert.include(String(refused), "GATEWAY_SQLITE_SYNCHRONOUS")
    }))
})
