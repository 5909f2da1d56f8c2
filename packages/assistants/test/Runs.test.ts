import { assert, describe, it } from "@effect/vitest"
import { Runs, RunSelection, ThreadStore } from "@switchyard/assistants"
import {
  GatewayError,
  type GatewayRequest,
  GatewayResponse,
  Principal,
  type ProviderRegistry,
  RequestContext
} from "@switchyard/core"
import { HookDenied } from "@switchyard/guardrails"
import type { ThreadRun } from "@switchyard/protocol"
import { Database } from "@switchyard/storage"
import { type Duration, Effect, Exit, Fiber, Layer, Result, Schema, Scope, Stream } from "effect"
import { TestClock } from "effect/testing"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assistantsLive } from "../examples/RunThread.ts"

type Answer = Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError>

const completion = (content: string, finishReason = "stop") =>
  Effect.succeed(GatewayResponse.json({
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: finishReason }],
    usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 }
  }))

/** A provider that answers each request with the next scripted answer, and records the requests. */
const scripted = (...answers: ReadonlyArray<Answer>) => {
  const received: Array<GatewayRequest.GatewayRequest> = []
  const adapter: ProviderRegistry.ProviderAdapter = {
    names: ["openai"],
    make: () =>
      Effect.succeed((request) =>
        Effect.suspend(() => {
          received.push(request)
          return answers[received.length - 1] ?? completion("unscripted")
        })
      )
  }
  return { adapter, received }
}

const principal = Principal.make({ keyId: "key-1", workspaceId: "ws", scopes: ["assistants"] })

/** An assistant and a thread with one user message, selecting the scripted provider. */
const setUp = Effect.gen(function*() {
  const store = yield* ThreadStore.ThreadStore
  const assistant = yield* store.createAssistant("ws", { model: "gpt-4o-mini", instructions: "Be brief." })
  const selection = yield* RunSelection.sealed({ "x-gateway-provider": "openai", authorization: "Bearer sk-1" })
  const thread = yield* store.createThread("ws", { messages: [{ role: "user", content: "hi" }] }, selection)
  const context = yield* RequestContext.inProcess({ principal })
  const runs = yield* Runs.Runs
  const start = (body: Partial<ThreadRun.CreateRun> = {}) =>
    runs.create({ context, threadId: thread.id, body: { assistant_id: assistant.id, ...body } })
  const settle = (run: ThreadRun.ThreadRun) => runs.settled("ws", thread.id, run.id)
  return { store, runs, assistant, thread, start, settle }
})

const page = { limit: 20, order: "asc" } as const

const failureOf = (error: GatewayError.GatewayError) =>
  error instanceof GatewayError.InvalidRequest ? `400 ${error.param}` : error._tag

describe("Runs", () => {
  it.effect("answers queued, then completes with the message, a message_creation step and the usage", () => {
    const provider = scripted(completion("hello back"))
    return Effect.gen(function*() {
      const { settle, start, store, thread } = yield* setUp
      const queued = yield* start({ additional_instructions: "Use French.", metadata: { job: "1" } })
      assert.deepStrictEqual([queued.status, queued.instructions], ["queued", "Be brief.\n\nUse French."])
      const run = yield* settle(queued)
      assert.strictEqual(run.status, "completed")
      assert.deepStrictEqual(run.usage, { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 })
      assert.deepStrictEqual(run.metadata, { job: "1" })
      const messages = (yield* store.listMessages("ws", thread.id, page)).data
      const answer = messages[1]
      assert.deepStrictEqual(
        [answer?.role, answer?.status, answer?.run_id, answer?.assistant_id],
        ["assistant", "completed", run.id, run.assistant_id]
      )
      const steps = (yield* store.listSteps("ws", thread.id, run.id, page)).data
      assert.deepStrictEqual(steps.map((step) => [step.type, step.status, step.step_details, step.usage]), [
        ["message_creation", "completed", {
          type: "message_creation",
          message_creation: { message_id: answer?.id ?? "" }
        }, {
          prompt_tokens: 7,
          completion_tokens: 3,
          total_tokens: 10
        }]
      ])
      assert.deepStrictEqual(provider.received[0]?.body.messages, [
        { role: "system", content: "Be brief.\n\nUse French." },
        { role: "user", content: "hi" }
      ])
    }).pipe(Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })

  it.effect("fails the run and its step with rate_limit_exceeded on a 429, adding no message", () => {
    const provider = scripted(
      Effect.fail(
        new GatewayError.UpstreamStatus({
          provider: "openai",
          status: 429,
          body: { error: { message: "slow down" } },
          headers: {}
        })
      )
    )
    return Effect.gen(function*() {
      const { settle, start, store, thread } = yield* setUp
      const run = yield* settle(yield* start())
      assert.strictEqual(run.status, "failed")
      assert.deepStrictEqual(run.last_error, { code: "rate_limit_exceeded", message: "429: slow down" })
      assert.isNotNull(run.failed_at)
      const [step] = (yield* store.listSteps("ws", thread.id, run.id, page)).data
      assert.deepStrictEqual([step?.status, step?.last_error], ["failed", run.last_error])
      assert.strictEqual((yield* store.listMessages("ws", thread.id, page)).data.length, 1)
    }).pipe(Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })

  it.effect("fails with server_error when the provider cannot be reached", () => {
    const provider = scripted(
      Effect.fail(new GatewayError.UpstreamUnreachable({ provider: "openai", message: "connection refused" }))
    )
    return Effect.gen(function*() {
      const { settle, start } = yield* setUp
      const run = yield* settle(yield* start())
      assert.deepStrictEqual([run.status, run.last_error?.code], ["failed", "server_error"])
    }).pipe(Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })

  it.effect("makes the message incomplete with content_filter, without its content, when an output guardrail denies", () => {
    const provider = scripted(Effect.fail(new HookDenied.HookDenied({ stage: "after", hookResults: {} })))
    return Effect.gen(function*() {
      const { settle, start, store, thread } = yield* setUp
      const run = yield* settle(yield* start())
      assert.deepStrictEqual([run.status, run.incomplete_details], ["incomplete", { reason: "content_filter" }])
      const answer = (yield* store.listMessages("ws", thread.id, { limit: 1, order: "desc" })).data[0]
      assert.deepStrictEqual(
        [answer?.status, answer?.incomplete_details, answer?.content, answer?.run_id],
        ["incomplete", { reason: "content_filter" }, [], run.id]
      )
    }).pipe(Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })

  it.effect("fails with invalid_prompt when an input guardrail denies", () => {
    const provider = scripted(Effect.fail(new HookDenied.HookDenied({ stage: "before", hookResults: {} })))
    return Effect.gen(function*() {
      const { settle, start } = yield* setUp
      const run = yield* settle(yield* start())
      assert.deepStrictEqual([run.status, run.last_error?.code], ["failed", "invalid_prompt"])
    }).pipe(Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })

  it.effect("ends incomplete when the answer is cut at max_completion_tokens, sent as max_tokens", () => {
    const provider = scripted(completion("cut sho", "length"))
    return Effect.gen(function*() {
      const { settle, start, store, thread } = yield* setUp
      const run = yield* settle(yield* start({ max_completion_tokens: 3 }))
      assert.deepStrictEqual([run.status, run.incomplete_details], ["incomplete", { reason: "max_completion_tokens" }])
      assert.strictEqual(provider.received[0]?.body.max_tokens, 3)
      const answer = (yield* store.listMessages("ws", thread.id, { limit: 1, order: "desc" })).data[0]
      assert.deepStrictEqual([answer?.status, answer?.incomplete_details], ["incomplete", { reason: "max_tokens" }])
    }).pipe(Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })

  it.effect("refuses a second run while the thread has an active one, and cancels the first", () => {
    const provider = scripted(Effect.never)
    return Effect.gen(function*() {
      const { runs, settle, start, store, thread } = yield* setUp
      const first = yield* start()
      // the provider has the request before the run is cancelled
      yield* Effect.repeat(Effect.sync(() => provider.received.length), { until: (n) => n > 0, times: 1000 })
      assert.strictEqual(failureOf(yield* Effect.flip(start())), "400 thread_id")
      const cancelled = yield* runs.cancel("ws", thread.id, first.id)
      assert.deepStrictEqual([cancelled.status, (yield* settle(first)).status], ["cancelled", "cancelled"])
      const steps = (yield* store.listSteps("ws", thread.id, first.id, page)).data
      assert.deepStrictEqual(steps.map((step) => step.status), ["cancelled"])
      assert.strictEqual(failureOf(yield* Effect.flip(runs.cancel("ws", thread.id, first.id))), "400 run_id")
      // the thread takes a new run once the first has ended
      assert.strictEqual((yield* start()).status, "queued")
    }).pipe(Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })

  it.effect("keeps metadata set while the run works: the run's progress never writes over it", () => {
    const provider = scripted(Effect.andThen(Effect.sleep("1 second"), completion("done")))
    return Effect.gen(function*() {
      const { settle, start, store, thread } = yield* setUp
      const queued = yield* start({ metadata: { first: "1" } })
      yield* Effect.repeat(Effect.sync(() => provider.received.length), { until: (n) => n > 0, times: 1000 })
      const modified = yield* store.modifyRun("ws", thread.id, queued.id, { metadata: { second: "2" } })
      assert.deepStrictEqual(modified.metadata, { second: "2" })
      yield* TestClock.adjust("1 second")
      const done = yield* settle(queued)
      assert.deepStrictEqual([done.status, done.metadata], ["completed", { second: "2" }])
    }).pipe(Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })

  it.effect("refuses an assistant of another workspace as a 400 naming assistant_id", () => {
    const provider = scripted()
    return Effect.gen(function*() {
      const { start, store } = yield* setUp
      const foreign = yield* store.createAssistant("ws-other", { model: "m" })
      assert.strictEqual(failureOf(yield* Effect.flip(start({ assistant_id: foreign.id }))), "400 assistant_id")
    }).pipe(Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })

  it.effect("after a restart, fails a run left in_progress, starts one left queued, expires one too old", () => {
    const provider = scripted(completion("resumed"))
    return Effect.gen(function*() {
      const { assistant, runs, settle, store, thread } = yield* setUp
      const caller = { keyId: "key-1", scopes: ["assistants" as const] }
      const base = yield* start0(assistant.id, thread.id)
      // as a process that died would have left them: leased until t = 60 s, never renewed
      yield* store.insertRun("ws", { ...base, id: "run_stuck", status: "in_progress", started_at: 0 }, caller, 60)
      const stuck = yield* store.getRun("ws", thread.id, "run_stuck")
      assert.strictEqual(stuck.run.status, "in_progress")
      yield* TestClock.adjust("61 seconds")
      yield* runs.sweep
      const failed = (yield* store.getRun("ws", thread.id, "run_stuck")).run
      assert.deepStrictEqual([failed.status, failed.last_error?.code], ["failed", "server_error"])
      assert.include(failed.last_error?.message ?? "", "stopped before it ended")

      yield* store.insertRun("ws", { ...base, id: "run_waiting", expires_at: 600 }, caller, 60)
      yield* TestClock.adjust("60 seconds")
      yield* runs.sweep
      const resumed = yield* settle({ ...base, id: "run_waiting" })
      assert.strictEqual(resumed.status, "completed")

      yield* store.insertRun("ws", { ...base, id: "run_old", expires_at: 100 }, caller, 60)
      yield* runs.sweep
      assert.strictEqual((yield* settle({ ...base, id: "run_old" })).status, "expired")
      // a run whose lease has not passed is left to its holder
      yield* store.insertRun("ws", { ...base, id: "run_held", expires_at: 600 }, caller, 10_000)
      yield* runs.sweep
      assert.strictEqual((yield* store.getRun("ws", thread.id, "run_held")).run.status, "queued")
    }).pipe(Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })
})

/** A queued run of the thread as `create` would make it, for runs written straight to the store. */
const start0 = (assistantId: string, threadId: string) =>
  Effect.succeed<ThreadRun.ThreadRun>({
    id: "run_template",
    object: "thread.run",
    created_at: 0,
    thread_id: threadId,
    assistant_id: assistantId,
    status: "queued",
    required_action: null,
    last_error: null,
    expires_at: 600,
    started_at: null,
    cancelled_at: null,
    failed_at: null,
    completed_at: null,
    incomplete_details: null,
    model: "gpt-4o-mini",
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
  })

const toolCall = Effect.succeed(GatewayResponse.json({
  id: "chatcmpl-2",
  object: "chat.completion",
  created: 1,
  model: "m",
  choices: [{
    index: 0,
    message: {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: "{\"city\":\"Oslo\"}" } }]
    },
    finish_reason: "tool_calls"
  }],
  usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 }
}))

const weatherTool = {
  type: "function" as const,
  function: { name: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } }
}

describe("Runs with function tools", () => {
  it.effect("waits in requires_action on a function call and goes on with the submitted output", () => {
    const provider = scripted(toolCall, completion("It is sunny in Oslo."))
    return Effect.gen(function*() {
      const { runs, settle, start, store, thread } = yield* setUp
      const waiting = yield* settle(yield* start({ tools: [weatherTool] }))
      assert.strictEqual(waiting.status, "requires_action")
      assert.deepStrictEqual(waiting.required_action, {
        type: "submit_tool_outputs",
        submit_tool_outputs: {
          tool_calls: [{
            id: "call_1",
            type: "function",
            function: { name: "weather", arguments: "{\"city\":\"Oslo\"}" }
          }]
        }
      })
      assert.deepStrictEqual(provider.received[0]?.body.tools, [weatherTool])
      const wrong = yield* Effect.flip(
        runs.submitToolOutputs("ws", thread.id, waiting.id, { tool_outputs: [{ tool_call_id: "call_9", output: "x" }] })
      )
      assert.strictEqual(failureOf(wrong), "400 tool_outputs")
      const missing = yield* Effect.flip(runs.submitToolOutputs("ws", thread.id, waiting.id, { tool_outputs: [] }))
      assert.strictEqual(failureOf(missing), "400 tool_outputs")
      // two submissions at once: one continues the run, the other is refused
      const submit = runs.submitToolOutputs("ws", thread.id, waiting.id, {
        tool_outputs: [{ tool_call_id: "call_1", output: "sunny" }]
      }).pipe(Effect.result)
      const [first, second] = yield* Effect.all([submit, submit], { concurrency: "unbounded" })
      const accepted = [first, second].filter(Result.isSuccess).map((result) => result.success)
      const refused = [first, second].filter(Result.isFailure).map((result) => failureOf(result.failure))
      assert.deepStrictEqual([accepted.length, refused], [1, ["400 run_id"]])
      const queued = accepted[0] ?? waiting
      assert.deepStrictEqual([queued.status, queued.required_action], ["queued", null])
      const done = yield* settle(queued)
      assert.strictEqual(done.status, "completed")
      assert.deepStrictEqual(done.usage, { prompt_tokens: 14, completion_tokens: 6, total_tokens: 20 })
      assert.deepStrictEqual(provider.received[1]?.body.messages, [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "call_1",
            type: "function",
            function: { name: "weather", arguments: "{\"city\":\"Oslo\"}" }
          }]
        },
        { role: "tool", tool_call_id: "call_1", content: "sunny" }
      ])
      const steps = (yield* store.listSteps("ws", thread.id, done.id, page)).data
      assert.deepStrictEqual(steps.map((step) => [step.type, step.status]), [
        ["tool_calls", "completed"],
        ["message_creation", "completed"]
      ])
      assert.deepStrictEqual(steps[0]?.step_details.tool_calls, [
        {
          id: "call_1",
          type: "function",
          function: { name: "weather", arguments: "{\"city\":\"Oslo\"}", output: "sunny" }
        }
      ])
      const again = yield* Effect.flip(
        runs.submitToolOutputs("ws", thread.id, done.id, { tool_outputs: [{ tool_call_id: "call_1", output: "x" }] })
      )
      assert.strictEqual(failureOf(again), "400 run_id")
    }).pipe(Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })

  it.effect("expires a run that waits on its caller past expires_at", () => {
    const provider = scripted(toolCall)
    return Effect.gen(function*() {
      const { runs, settle, start } = yield* setUp
      const waiting = yield* settle(yield* start({ tools: [weatherTool] }))
      assert.strictEqual(waiting.status, "requires_action")
      yield* TestClock.adjust(`${Runs.EXPIRES_AFTER_SECONDS - 30} seconds`)
      assert.strictEqual((yield* settle(waiting)).status, "requires_action")
      yield* TestClock.adjust("60 seconds")
      yield* runs.sweep
      const expired = yield* settle(waiting)
      assert.deepStrictEqual([expired.status, expired.required_action], ["expired", null])
    }).pipe(Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })
})

const decodeDelta = Schema.decodeUnknownSync(Schema.Struct({
  delta: Schema.Struct({ content: Schema.Tuple([Schema.Struct({ text: Schema.Struct({ value: Schema.String }) })]) })
}))

/** The `id` of an event's object. */
const idOf = (data: unknown): string =>
  typeof data === "object" && data !== null && "id" in data && typeof data.id === "string" ? data.id : ""

describe("Runs streamed", () => {
  it.effect("streams a run's events in the common order, the text as a message delta", () => {
    const provider = scripted(completion("streamed answer"))
    return Effect.gen(function*() {
      const { assistant, runs, thread } = yield* setUp
      const context = yield* RequestContext.inProcess({ principal })
      const events = yield* runs.createStreaming({ context, threadId: thread.id, body: { assistant_id: assistant.id } })
      const collected = yield* Stream.runCollect(events)
      assert.deepStrictEqual(collected.map((event) => event.event), [
        "thread.run.created",
        "thread.run.queued",
        "thread.run.in_progress",
        "thread.run.step.created",
        "thread.run.step.in_progress",
        "thread.message.created",
        "thread.message.in_progress",
        "thread.message.delta",
        "thread.message.completed",
        "thread.run.step.completed",
        "thread.run.completed"
      ])
      assert.deepStrictEqual(collected[7]?.data, {
        id: idOf(collected[8]?.data),
        object: "thread.message.delta",
        delta: { content: [{ index: 0, type: "text", text: { value: "streamed answer", annotations: [] } }] }
      })
    }).pipe(Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })

  it.effect("relays a streamed provider answer as one message delta per chunk", () => {
    const chunk = (content: string | undefined, extra: Record<string, unknown> = {}) => ({
      id: "chatcmpl-s",
      object: "chat.completion.chunk",
      created: 1,
      model: "m",
      choices: content === undefined ? [] : [{ index: 0, delta: { content }, finish_reason: null }],
      ...extra
    })
    const provider = scripted(Effect.succeed({
      _tag: "Stream" as const,
      status: 200,
      headers: {},
      chunks: Stream.make(
        chunk("Hel"),
        chunk("lo"),
        chunk(undefined, { usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 } })
      )
    }))
    return Effect.gen(function*() {
      const { assistant, runs, store, thread } = yield* setUp
      const context = yield* RequestContext.inProcess({ principal })
      const events = yield* Stream.runCollect(
        yield* runs.createStreaming({ context, threadId: thread.id, body: { assistant_id: assistant.id } })
      )
      const deltas = events.filter((event) => event.event === "thread.message.delta")
      assert.deepStrictEqual(
        deltas.map((event) => decodeDelta(event.data).delta.content[0].text.value),
        ["Hel", "lo"]
      )
      assert.strictEqual(events.filter((event) => event.event === "thread.message.created").length, 1)
      assert.strictEqual(provider.received[0]?.body.stream, true)
      const run = yield* runs.settled("ws", thread.id, idOf(events[0]?.data))
      assert.deepStrictEqual([run.status, run.usage?.total_tokens], ["completed", 6])
      const answer = (yield* store.listMessages("ws", thread.id, { limit: 1, order: "desc" })).data[0]
      assert.deepStrictEqual(answer?.content, [{ type: "text", text: { value: "Hello", annotations: [] } }])
    }).pipe(Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })

  it.effect("ends a streamed run's events at requires_action, and streams its continuation", () => {
    const provider = scripted(toolCall, completion("done"))
    return Effect.gen(function*() {
      const { assistant, runs, thread } = yield* setUp
      const context = yield* RequestContext.inProcess({ principal })
      const first = yield* Stream.runCollect(
        yield* runs.createStreaming({
          context,
          threadId: thread.id,
          body: { assistant_id: assistant.id, tools: [weatherTool] }
        })
      )
      assert.deepStrictEqual(first.slice(-2).map((event) => event.event), [
        "thread.run.step.delta",
        "thread.run.requires_action"
      ])
      const runId = idOf(first[0]?.data)
      const second = yield* Stream.runCollect(
        yield* runs.submitToolOutputsStreaming("ws", thread.id, runId, {
          tool_outputs: [{ tool_call_id: "call_1", output: "sunny" }]
        })
      )
      assert.deepStrictEqual([second[0]?.event, second.at(-1)?.event], ["thread.run.queued", "thread.run.completed"])
    }).pipe(Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })
})

describe("Runs on a database only this process opens", () => {
  it.effect("takes over at start-up a run left in_progress, however long its lease", () => {
    const provider = scripted()
    return Effect.gen(function*() {
      const { assistant, store, thread } = yield* setUp
      const base = yield* start0(assistant.id, thread.id)
      yield* store.insertRun("ws", { ...base, id: "run_left", status: "in_progress", started_at: 0 }, {
        keyId: "key-1",
        scopes: ["assistants"]
      }, 1_000_000)
      // a second process start on the same database, as after a restart
      yield* Layer.build(Layer.fresh(Runs.Runs.layerSoleProcess))
      const left = yield* store.getRun("ws", thread.id, "run_left").pipe(
        Effect.map((stored) => stored.run),
        Effect.repeat({ until: (run) => run.status !== "in_progress", times: 100 })
      )
      assert.deepStrictEqual([left.status, left.last_error?.code], ["failed", "server_error"])
    }).pipe(Effect.scoped, Effect.provide(assistantsLive([provider.adapter], ":memory:")))
  })
})

describe("Runs when the process stops", () => {
  const stopsDuring = (answerAfter: Duration.Input) =>
    Effect.gen(function*() {
      const file = join(mkdtempSync(join(tmpdir(), "assistants-stop-")), "threads.db")
      const provider = scripted(Effect.andThen(Effect.sleep(answerAfter), completion("late")))
      const scope = yield* Scope.make()
      const services = yield* Layer.buildWithScope(assistantsLive([provider.adapter], file), scope)
      const { runId, threadId } = yield* Effect.gen(function*() {
        const { start, thread } = yield* setUp
        const run = yield* start()
        yield* Effect.repeat(Effect.sync(() => provider.received.length), { until: (n) => n > 0, times: 1000 })
        return { runId: run.id, threadId: thread.id }
      }).pipe(Effect.provide(services))
      const stopping = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      yield* TestClock.adjust(Runs.STOP_WAIT)
      yield* Fiber.join(stopping)
      // the database file outlives the process: a store opened on it again reads what was left
      return yield* ThreadStore.ThreadStore.use((store) => store.getRun("ws", threadId, runId)).pipe(
        Effect.provide(ThreadStore.ThreadStore.layer.pipe(Layer.provide(Database.layerSqlite(file))))
      )
    })

  it.effect("lets a run the provider answers within STOP_WAIT finish", () =>
    Effect.gen(function*() {
      const stored = yield* stopsDuring("5 seconds")
      assert.deepStrictEqual([stored.run.status, stored.run.last_error], ["completed", null])
    }))

  it.effect("leaves a run still working after STOP_WAIT to the next sweep, in_progress", () =>
    Effect.gen(function*() {
      const stored = yield* stopsDuring("1 minute")
      assert.strictEqual(stored.run.status, "in_progress")
    }))
})
