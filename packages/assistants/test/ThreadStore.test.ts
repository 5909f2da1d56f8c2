import { assert, layer } from "@effect/vitest"
import { ThreadStore } from "@switchyard/assistants"
import { GatewayError } from "@switchyard/core"
import type { ListQuery, ThreadRun } from "@switchyard/protocol"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer, Option } from "effect"

const store = Effect.gen(function*() {
  return yield* ThreadStore.ThreadStore
})

const page = (query: Partial<ListQuery.ListQuery> = {}): ListQuery.ListQuery => ({ limit: 20, order: "desc", ...query })

/** The tag of a failure, or the field a 400 names: a test then fails naming what came instead. */
const failureOf = (error: GatewayError.GatewayError) =>
  error instanceof GatewayError.InvalidRequest ? `400 ${error.param}` : error._tag

const runTemplate: ThreadRun.ThreadRun = {
  id: "",
  object: "thread.run",
  created_at: 0,
  thread_id: "",
  assistant_id: "asst_1",
  status: "queued",
  required_action: null,
  last_error: null,
  expires_at: 600,
  started_at: null,
  cancelled_at: null,
  failed_at: null,
  completed_at: null,
  incomplete_details: null,
  model: "m",
  instructions: "",
  tools: [],
  metadata: {},
  usage: null,
  temperature: null,
  top_p: null,
  max_prompt_tokens: null,
  max_completion_tokens: null,
  truncation_strategy: { type: "auto", last_messages: null },
  response_format: "auto",
  tool_choice: "auto",
  parallel_tool_calls: true
}

const ids = (objects: ReadonlyArray<{ readonly id: string }>) => objects.map((object) => object.id)

const texts = (messages: ReadonlyArray<{ readonly content: ReadonlyArray<unknown> }>) =>
  messages.map((message) => JSON.stringify(message.content))

for (const { name, layer: database } of TestDatabase.dialects) {
  layer(ThreadStore.ThreadStore.layer.pipe(Layer.provideMerge(database)))(`ThreadStore on ${name}`, (it) => {
    it.effect("creates an assistant with every field defaulted as the common format has it", () =>
      Effect.gen(function*() {
        const threads = yield* store
        const created = yield* threads.createAssistant("ws-a", { model: "gpt-4o-mini", instructions: "Be brief." })
        assert.match(created.id, /^asst_/)
        assert.deepStrictEqual({ ...created, id: "", created_at: 0 }, {
          id: "",
          object: "assistant",
          created_at: 0,
          name: null,
          description: null,
          model: "gpt-4o-mini",
          instructions: "Be brief.",
          tools: [],
          metadata: {},
          temperature: null,
          top_p: null,
          response_format: "auto",
          provider: null,
          integration: null,
          config: null
        })
        assert.deepStrictEqual(yield* threads.getAssistant("ws-a", created.id), created)
        assert.isNull(yield* threads.assistantSelection("ws-a", created.id))
      }))

    it.effect("keeps an assistant's own selection apart from the object, shows no inline config, and replaces it", () =>
      Effect.gen(function*() {
        const threads = yield* store
        const inline = { provider: "openai", api_key: "sk-secret" }
        const created = yield* threads.createAssistant("ws-s", { model: "m", config: inline }, "sealed-1")
        assert.strictEqual(created.config, null)
        assert.notInclude(JSON.stringify(yield* threads.getAssistant("ws-s", created.id)), "sk-secret")
        assert.strictEqual(yield* threads.assistantSelection("ws-s", created.id), "sealed-1")
        // a body without selection fields keeps it
        yield* threads.modifyAssistant("ws-s", created.id, { name: "renamed" })
        assert.strictEqual(yield* threads.assistantSelection("ws-s", created.id), "sealed-1")
        const moved = yield* threads.modifyAssistant("ws-s", created.id, { integration: "anthropic-prod" }, "sealed-2")
        assert.deepStrictEqual([moved.integration, moved.config, moved.name], ["anthropic-prod", null, "renamed"])
        assert.strictEqual(yield* threads.assistantSelection("ws-s", created.id), "sealed-2")
        yield* threads.modifyAssistant("ws-s", created.id, { integration: null }, null)
        assert.isNull(yield* threads.assistantSelection("ws-s", created.id))
        const error = yield* Effect.flip(threads.assistantSelection("ws-other", created.id))
        assert.strictEqual(error._tag, "NotFound")
      }))

    it.effect("modifies only the fields a body sets, and deletes", () =>
      Effect.gen(function*() {
        const threads = yield* store
        const created = yield* threads.createAssistant("ws-m", { model: "m1", name: "first", metadata: { a: "1" } })
        const changed = yield* threads.modifyAssistant("ws-m", created.id, { name: "second", temperature: 0.5 })
        assert.deepStrictEqual(changed, { ...created, name: "second", temperature: 0.5 })
        assert.deepStrictEqual(yield* threads.getAssistant("ws-m", created.id), changed)
        assert.deepStrictEqual(yield* threads.deleteAssistant("ws-m", created.id), {
          id: created.id,
          object: "assistant.deleted",
          deleted: true
        })
        assert.strictEqual(failureOf(yield* Effect.flip(threads.getAssistant("ws-m", created.id))), "NotFound")
      }))

    it.effect("answers 404 for another workspace's assistant, thread and message", () =>
      Effect.gen(function*() {
        const threads = yield* store
        const assistant = yield* threads.createAssistant("ws-own", { model: "m" })
        const thread = yield* threads.createThread("ws-own", { messages: [{ role: "user", content: "hi" }] }, "s")
        const [message] = (yield* threads.listMessages("ws-own", thread.id, page())).data
        assert.isDefined(message)
        assert.strictEqual(failureOf(yield* Effect.flip(threads.getAssistant("ws-other", assistant.id))), "NotFound")
        assert.strictEqual(failureOf(yield* Effect.flip(threads.getThread("ws-other", thread.id))), "NotFound")
        assert.strictEqual(
          failureOf(yield* Effect.flip(threads.getMessage("ws-other", thread.id, message?.id ?? ""))),
          "NotFound"
        )
        assert.strictEqual(failureOf(yield* Effect.flip(threads.deleteThread("ws-other", thread.id))), "NotFound")
      }))

    it.effect("creates a thread with its first messages in order, its metadata and its sealed selection", () =>
      Effect.gen(function*() {
        const threads = yield* store
        const thread = yield* threads.createThread("ws-t", {
          metadata: { team: "search" },
          messages: [
            { role: "user", content: "first" },
            { role: "assistant", content: [{ type: "text", text: "second" }], metadata: { n: "2" } }
          ]
        }, "sealed-selection")
        assert.match(thread.id, /^thread_/)
        assert.deepStrictEqual(thread.metadata, { team: "search" })
        assert.strictEqual(yield* threads.threadSelection("ws-t", thread.id), "sealed-selection")
        const messages = yield* threads.conversation("ws-t", thread.id)
        assert.deepStrictEqual(texts(messages), [
          JSON.stringify([{ type: "text", text: { value: "first", annotations: [] } }]),
          JSON.stringify([{ type: "text", text: { value: "second", annotations: [] } }])
        ])
        assert.deepStrictEqual(messages.map((message) => [message.role, message.status, message.thread_id]), [
          ["user", "completed", thread.id],
          ["assistant", "completed", thread.id]
        ])
        assert.deepStrictEqual(messages[1]?.metadata, { n: "2" })
      }))

    it.effect("modifies a message's metadata only", () =>
      Effect.gen(function*() {
        const threads = yield* store
        const thread = yield* threads.createThread("ws-mm", {}, "s")
        const message = yield* threads.createMessage("ws-mm", thread.id, { role: "user", content: "hi" })
        const changed = yield* threads.modifyMessage("ws-mm", thread.id, message.id, { metadata: { k: "v" } })
        assert.deepStrictEqual(changed, { ...message, metadata: { k: "v" } })
        assert.deepStrictEqual(yield* threads.getMessage("ws-mm", thread.id, message.id), changed)
      }))

    it.effect("refuses a message in a thread that does not exist", () =>
      Effect.gen(function*() {
        const threads = yield* store
        const error = yield* Effect.flip(threads.createMessage("ws-x", "thread_nope", { role: "user", content: "hi" }))
        assert.strictEqual(failureOf(error), "NotFound")
      }))

    it.effect("pages messages both ways with has_more, first_id and last_id", () =>
      Effect.gen(function*() {
        const threads = yield* store
        const thread = yield* threads.createThread(
          "ws-p",
          { messages: ["1", "2", "3", "4", "5"].map((content) => ({ role: "user" as const, content })) },
          "s"
        )
        const all = yield* threads.conversation("ws-p", thread.id)
        const [m1, m2, m3, m4, m5] = ids(all)
        const newest = yield* threads.listMessages("ws-p", thread.id, page({ limit: 2 }))
        assert.deepStrictEqual(ids(newest.data), [m5, m4])
        assert.deepStrictEqual([newest.first_id, newest.last_id, newest.has_more], [m5, m4, true])
        const next = yield* threads.listMessages("ws-p", thread.id, page({ limit: 2, after: m4 ?? "" }))
        assert.deepStrictEqual(ids(next.data), [m3, m2])
        const last = yield* threads.listMessages("ws-p", thread.id, page({ limit: 2, after: m2 ?? "" }))
        assert.deepStrictEqual([ids(last.data), last.has_more], [[m1], false])
        const back = yield* threads.listMessages("ws-p", thread.id, page({ limit: 2, before: m2 ?? "" }))
        assert.deepStrictEqual([ids(back.data), back.has_more], [[m4, m3], true])
        const ascending = yield* threads.listMessages("ws-p", thread.id, page({ limit: 100, order: "asc" }))
        assert.deepStrictEqual([ids(ascending.data), ascending.has_more], [[m1, m2, m3, m4, m5], false])
        const ascendingAfter = yield* threads.listMessages("ws-p", thread.id, page({ order: "asc", after: m3 ?? "" }))
        assert.deepStrictEqual(ids(ascendingAfter.data), [m4, m5])
        const ascendingBefore = yield* threads.listMessages(
          "ws-p",
          thread.id,
          page({ limit: 1, order: "asc", before: m3 ?? "" })
        )
        assert.deepStrictEqual([ids(ascendingBefore.data), ascendingBefore.has_more], [[m2], true])
      }))

    it.effect("answers an empty page with null ids, and a 400 naming an unknown cursor", () =>
      Effect.gen(function*() {
        const threads = yield* store
        const thread = yield* threads.createThread("ws-e", {}, "s")
        assert.deepStrictEqual(yield* threads.listMessages("ws-e", thread.id, page()), {
          object: "list",
          data: [],
          first_id: null,
          last_id: null,
          has_more: false
        })
        const error = yield* Effect.flip(threads.listMessages("ws-e", thread.id, page({ after: "msg_nope" })))
        assert.strictEqual(failureOf(error), "400 after")
        const before = yield* Effect.flip(threads.listAssistants("ws-e", page({ before: "asst_nope" })))
        assert.strictEqual(failureOf(before), "400 before")
      }))

    it.effect("lists assistants of the workspace only, newest first", () =>
      Effect.gen(function*() {
        const threads = yield* store
        const first = yield* threads.createAssistant("ws-l", { model: "m" })
        const second = yield* threads.createAssistant("ws-l", { model: "m" })
        yield* threads.createAssistant("ws-l-other", { model: "m" })
        assert.deepStrictEqual(ids((yield* threads.listAssistants("ws-l", page())).data), [second.id, first.id])
      }))

    it.effect("lets one taker claim an abandoned run, and none while a lease holds it", () =>
      Effect.gen(function*() {
        const threads = yield* store
        const thread = yield* threads.createThread("ws-lease", {}, "s")
        const run = {
          ...runTemplate,
          id: ThreadStore.newId("run"),
          thread_id: thread.id,
          status: "in_progress" as const
        }
        yield* threads.insertRun("ws-lease", run, { keyId: "k", scopes: ["assistants"] }, 10)
        assert.deepStrictEqual(yield* threads.takeAbandoned(5, 65), [])
        const taken = yield* threads.takeAbandoned(20, 80)
        assert.deepStrictEqual(taken.map((one) => [one.workspaceId, one.run.id, one.caller.keyId]), [
          ["ws-lease", run.id, "k"]
        ])
        // the first taker now holds it until 80
        assert.deepStrictEqual(yield* threads.takeAbandoned(20, 80), [])
        assert.strictEqual((yield* threads.takeAbandoned(20, 80, { ignoreLeases: true })).length, 1)
        yield* threads.updateRun("ws-lease", { ...run, status: "failed" }, null)
        assert.deepStrictEqual(yield* threads.takeAbandoned(100, 160, { ignoreLeases: true }), [])
      }))

    it.effect("writes one of several runs created at once on a thread, and answers the others with it", () =>
      Effect.gen(function*() {
        const threads = yield* store
        const thread = yield* threads.createThread("ws-race", {}, "s")
        const attempts = Array.from({ length: 20 }, () => ({
          ...runTemplate,
          id: ThreadStore.newId("run"),
          thread_id: thread.id
        }))
        const answers = yield* Effect.forEach(
          attempts,
          (run) => threads.insertRunIfIdle("ws-race", run, { keyId: "k", scopes: ["assistants"] }, 60),
          { concurrency: "unbounded" }
        )
        const written = attempts.filter((_, index) => Option.isNone(answers[index] ?? Option.none()))
        assert.strictEqual(written.length, 1)
        const blocking = answers.filter(Option.isSome).map((answer) => answer.value.id)
        assert.deepStrictEqual(blocking, Array.from({ length: 19 }, () => written[0]?.id))
        const listed = yield* threads.listRuns("ws-race", thread.id, page())
        assert.deepStrictEqual(ids(listed.data), [written[0]?.id])
        // once it has ended, the thread takes a new run
        yield* threads.updateRun("ws-race", {
          ...runTemplate,
          id: written[0]?.id ?? "",
          thread_id: thread.id,
          status: "completed"
        })
        const next = { ...runTemplate, id: ThreadStore.newId("run"), thread_id: thread.id }
        const answer = yield* threads.insertRunIfIdle("ws-race", next, { keyId: "k", scopes: ["assistants"] }, 60)
        assert.isTrue(Option.isNone(answer))
      }))

    it.effect("refuses a caller's message while the thread has an active run, and takes it once the run ended", () =>
      Effect.gen(function*() {
        const threads = yield* store
        const thread = yield* threads.createThread("ws-busy", {}, "s")
        const run = { ...runTemplate, id: ThreadStore.newId("run"), thread_id: thread.id }
        yield* threads.insertRunIfIdle("ws-busy", run, { keyId: "k", scopes: ["assistants"] }, 60)
        const refused = yield* Effect.flip(threads.createMessage("ws-busy", thread.id, { role: "user", content: "x" }))
        assert.strictEqual(failureOf(refused), "400 thread_id")
        yield* threads.updateRun("ws-busy", { ...run, status: "cancelled" })
        const added = yield* threads.createMessage("ws-busy", thread.id, { role: "user", content: "x" })
        assert.strictEqual(added.thread_id, thread.id)
      }))

    it.effect("deletes a thread with its messages", () =>
      Effect.gen(function*() {
        const threads = yield* store
        const thread = yield* threads.createThread("ws-d", { messages: [{ role: "user", content: "hi" }] }, "s")
        assert.deepStrictEqual(yield* threads.deleteThread("ws-d", thread.id), {
          id: thread.id,
          object: "thread.deleted",
          deleted: true
        })
        assert.strictEqual(failureOf(yield* Effect.flip(threads.listMessages("ws-d", thread.id, page()))), "NotFound")
      }))
  })
}
