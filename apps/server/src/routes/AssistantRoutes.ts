/**
 * /v1/assistants and /v1/threads (extensions.md, "Assistants, threads and runs"; interface 4.3,
 * 4.5, 4.6): assistants, threads with their messages, runs and run steps, in the caller's
 * workspace. A thread is created with a provider selection (400 without one), which its runs use.
 */
import { Runs, RunSelection, ThreadStore } from "@switchyard/assistants"
import { ServerSecret } from "@switchyard/auth"
import { GatewayError, RequestContext } from "@switchyard/core"
import { Assistant, InvalidInput, ListQuery, Thread, ThreadMessage, ThreadRun } from "@switchyard/protocol"
import { Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import type { BodyDeadlines } from "../http/BodyDeadlines.ts"
import { body, param, type RouteInput } from "./ManagementRoute.ts"

type Handler<R> = (input: RouteInput) => Effect.Effect<unknown, GatewayError.GatewayError, R>
type Store = ThreadStore.ThreadStore

const createAssistantBody = body(Assistant.CreateAssistant)
const modifyAssistantBody = body(Assistant.ModifyAssistant)
const createThreadBody = body(Thread.CreateThread)
const modifyThreadBody = body(Thread.ModifyThread)
const createMessageBody = body(ThreadMessage.CreateThreadMessage)
const modifyMessageBody = body(ThreadMessage.ModifyThreadMessage)
const createRunBody = body(ThreadRun.CreateRun)
const createThreadAndRunBody = body(ThreadRun.CreateThreadAndRun)
const modifyRunBody = body(ThreadRun.ModifyRun)
const submitToolOutputsBody = body(ThreadRun.SubmitToolOutputs)
const decodeListQuery = InvalidInput.decodeInput(ListQuery.ListQuery)

const queryOf = (input: RouteInput) => Object.fromEntries(new URL(input.request.url, "http://gateway").searchParams)

/** The list query; a bad bound is a 400 naming it. Other query members are left to the route. */
const listQuery = (input: RouteInput) => {
  const { limit, order, after, before } = queryOf(input)
  const present = Object.entries({ limit, order, after, before }).filter(([, value]) => value !== undefined)
  return decodeListQuery(Object.fromEntries(present)).pipe(
    Effect.mapError((error) => new GatewayError.InvalidRequest({ message: error.message, param: error.param }))
  )
}

const withStore = <A, E>(use: (store: Store["Service"]) => Effect.Effect<A, E>) => ThreadStore.ThreadStore.use(use)
const workspace = (input: RouteInput) => input.principal.workspaceId

/**
 * An assistant's own `provider`, `integration` or `config`, checked as a thread's selection is
 * (a bad config is a 400 now, not a failed run) and sealed; null when it names none.
 */
const assistantSelection = (request: Assistant.ModifyAssistant) => {
  const headers = RunSelection.ofAssistant(request)
  if (headers === undefined) return Effect.succeed(null)
  return Effect.flatMap(
    RunSelection.capture(headers).pipe(
      Effect.mapError((error) =>
        new GatewayError.InvalidRequest({
          message: error.message.replace(RequestContext.Headers.config, "config"),
          param: "config"
        })
      )
    ),
    (kept) => ServerSecret.ServerSecret.useSync((secret) => RunSelection.seal(secret, kept))
  )
}

export const createAssistant: Handler<Store | ServerSecret.ServerSecret | BodyDeadlines> = (input) =>
  Effect.gen(function*() {
    const request = yield* createAssistantBody(input.request)
    const selection = yield* assistantSelection(request)
    return yield* withStore((store) => store.createAssistant(workspace(input), request, selection))
  })

export const listAssistants: Handler<Store> = (input) =>
  Effect.flatMap(listQuery(input), (query) => withStore((store) => store.listAssistants(workspace(input), query)))

export const getAssistant: Handler<Store> = (input) =>
  withStore((store) => store.getAssistant(workspace(input), param(input, "assistant_id")))

export const modifyAssistant: Handler<Store | ServerSecret.ServerSecret | BodyDeadlines> = (input) =>
  Effect.gen(function*() {
    const request = yield* modifyAssistantBody(input.request)
    // naming any of the three replaces the assistant's selection; naming none keeps it
    const names = request.provider !== undefined || request.integration !== undefined || request.config !== undefined
    const selection = names ? yield* assistantSelection(request) : undefined
    return yield* withStore((store) =>
      store.modifyAssistant(workspace(input), param(input, "assistant_id"), request, selection)
    )
  })

export const deleteAssistant: Handler<Store> = (input) =>
  withStore((store) => store.deleteAssistant(workspace(input), param(input, "assistant_id")))

/** The selection is checked before the body is read: a thread without a provider is refused first. */
export const createThread: Handler<Store | ServerSecret.ServerSecret | BodyDeadlines> = (input) =>
  Effect.gen(function*() {
    const selection = yield* RunSelection.capture(input.request.headers)
    // the metadata header is checked now, not at the first run
    yield* RequestContext.parseMetadata(input.request.headers[RequestContext.Headers.metadata])
    const request = yield* createThreadBody(input.request)
    const secret = yield* ServerSecret.ServerSecret
    return yield* withStore((store) =>
      store.createThread(workspace(input), request, RunSelection.seal(secret, selection))
    )
  })

export const getThread: Handler<Store> = (input) =>
  withStore((store) => store.getThread(workspace(input), param(input, "thread_id")))

export const modifyThread: Handler<Store | BodyDeadlines> = (input) =>
  Effect.flatMap(
    modifyThreadBody(input.request),
    (request) => withStore((store) => store.modifyThread(workspace(input), param(input, "thread_id"), request))
  )

export const deleteThread: Handler<Store> = (input) =>
  withStore((store) => store.deleteThread(workspace(input), param(input, "thread_id")))

/** While a run of the thread has not ended, a new message is a 400 naming `thread_id` (the store's rule). */
export const createMessage: Handler<Store | BodyDeadlines> = (input) =>
  Effect.flatMap(
    createMessageBody(input.request),
    (request) => withStore((store) => store.createMessage(workspace(input), param(input, "thread_id"), request))
  )

export const listMessages: Handler<Store> = (input) =>
  Effect.gen(function*() {
    const query = yield* listQuery(input)
    // `run_id` keeps only the messages that run made
    const runId = queryOf(input).run_id
    return yield* withStore((store) => store.listMessages(workspace(input), param(input, "thread_id"), query, runId))
  })

export const getMessage: Handler<Store> = (input) =>
  withStore((store) => store.getMessage(workspace(input), param(input, "thread_id"), param(input, "message_id")))

export const modifyMessage: Handler<Store | BodyDeadlines> = (input) =>
  Effect.flatMap(
    modifyMessageBody(input.request),
    (request) =>
      withStore((store) =>
        store.modifyMessage(workspace(input), param(input, "thread_id"), param(input, "message_id"), request)
      )
  )

export const deleteMessage: Handler<Store> = (input) =>
  withStore((store) => store.deleteMessage(workspace(input), param(input, "thread_id"), param(input, "message_id")))

const encoder = new TextEncoder()

/**
 * A run's events as the common assistants stream has them: `event: <name>` and `data: <json>`
 * per event, then `event: done` with `data: [DONE]`.
 */
const runEventStream = (events: Stream.Stream<Runs.RunEvent>) =>
  HttpServerResponse.stream(
    events.pipe(
      Stream.map((event) => encoder.encode(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`)),
      Stream.concat(Stream.succeed(encoder.encode("event: done\ndata: [DONE]\n\n")))
    ),
    { contentType: "text/event-stream; charset=utf-8", headers: { "cache-control": "no-cache" } }
  )

/** `stream: true` answers the run's events as they happen; otherwise the queued run. */
export const createRun: Handler<Runs.Runs | BodyDeadlines> = (input) =>
  Effect.gen(function*() {
    const request = yield* createRunBody(input.request)
    const context = yield* RequestContext.make({
      traceId: RequestContext.traceIdOf(input.request.headers),
      headers: input.request.headers,
      principal: input.principal,
      receivedAt: Date.now()
    })
    const options = { context, threadId: param(input, "thread_id"), body: request }
    const runs = yield* Runs.Runs
    return request.stream === true ? runEventStream(yield* runs.createStreaming(options)) : yield* runs.create(options)
  })

/**
 * A new thread (with the request's provider selection, as `POST /v1/threads` keeps it) and its
 * first run, in one call. An unknown assistant is refused before the thread is written.
 */
export const createThreadAndRun: Handler<Store | Runs.Runs | ServerSecret.ServerSecret | BodyDeadlines> = (input) =>
  Effect.gen(function*() {
    const selection = yield* RunSelection.capture(input.request.headers)
    const context = yield* RequestContext.make({
      traceId: RequestContext.traceIdOf(input.request.headers),
      headers: input.request.headers,
      principal: input.principal,
      receivedAt: Date.now()
    })
    const { thread: threadBody, ...request } = yield* createThreadAndRunBody(input.request)
    const store = yield* ThreadStore.ThreadStore
    yield* store.getAssistant(workspace(input), request.assistant_id).pipe(
      Effect.catchTag("NotFound", () =>
        Effect.fail(
          new GatewayError.InvalidRequest({
            message: `assistant_id: no assistant ${request.assistant_id} in this workspace`,
            param: "assistant_id"
          })
        ))
    )
    const secret = yield* ServerSecret.ServerSecret
    const thread = yield* store.createThread(workspace(input), threadBody ?? {}, RunSelection.seal(secret, selection))
    const options = { context, threadId: thread.id, body: request }
    const runs = yield* Runs.Runs
    return request.stream === true ? runEventStream(yield* runs.createStreaming(options)) : yield* runs.create(options)
  })

export const listRuns: Handler<Store> = (input) =>
  Effect.flatMap(
    listQuery(input),
    (query) => withStore((store) => store.listRuns(workspace(input), param(input, "thread_id"), query))
  )

export const getRun: Handler<Store> = (input) =>
  withStore((store) =>
    Effect.map(
      store.getRun(workspace(input), param(input, "thread_id"), param(input, "run_id")),
      (stored) => stored.run
    )
  )

export const modifyRun: Handler<Store | BodyDeadlines> = (input) =>
  Effect.flatMap(
    modifyRunBody(input.request),
    (request) =>
      withStore((store) =>
        store.modifyRun(workspace(input), param(input, "thread_id"), param(input, "run_id"), request)
      )
  )

export const cancelRun: Handler<Runs.Runs> = (input) =>
  Runs.Runs.use((runs) => runs.cancel(workspace(input), param(input, "thread_id"), param(input, "run_id")))

/** Continues a run waiting in `requires_action`; with `stream: true`, answers its events. */
export const submitToolOutputs: Handler<Runs.Runs | BodyDeadlines> = (input) =>
  Effect.gen(function*() {
    const request = yield* submitToolOutputsBody(input.request)
    const runs = yield* Runs.Runs
    const ids = [workspace(input), param(input, "thread_id"), param(input, "run_id")] as const
    return request.stream === true
      ? runEventStream(yield* runs.submitToolOutputsStreaming(...ids, request))
      : yield* runs.submitToolOutputs(...ids, request)
  })

export const listSteps: Handler<Store> = (input) =>
  Effect.flatMap(
    listQuery(input),
    (query) =>
      withStore((store) => store.listSteps(workspace(input), param(input, "thread_id"), param(input, "run_id"), query))
  )

export const getStep: Handler<Store> = (input) =>
  withStore((store) =>
    store.getStep(workspace(input), param(input, "thread_id"), param(input, "run_id"), param(input, "step_id"))
  )
