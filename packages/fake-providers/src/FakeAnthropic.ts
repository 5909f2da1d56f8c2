/**
 * A fake Anthropic Messages API on 127.0.0.1 that checks each request as docs.anthropic.com
 * defines it (`POST /v1/messages`, `x-api-key`, `anthropic-version`, a JSON body with `model`,
 * `max_tokens`, top-level `system`, user/assistant turns…) and answers in Anthropic's shapes,
 * errors included (`{ type: "error", error: { type, message } }`). `POST /v1/messages/count_tokens`
 * answers `{ input_tokens }` with the fake's own count (TokenCountRequest), or a queued JSON
 * behaviour (an error) in its place.
 *
 * @example
 * ```ts
 * import { FakeAnthropic } from "@switchyard/fake-providers"
 *
 * const fake = await FakeAnthropic.start({ apiKey: "sk-ant-test" })
 * fake.enqueue(FakeAnthropic.error(529, "overloaded_error", "Overloaded"))
 * fake.enqueue(FakeAnthropic.message({ content: [{ type: "text", text: "Hi" }], stop_reason: "end_turn" }))
 * await fake.close()
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { type Behaviour, json, reply } from "./Behaviour.ts"
import { errorBody, sendJson, sleepUnlessAborted, writeEvents } from "./internal/anthropic/AnthropicExchange.ts"
import { defaultReply, messageEvents, messageObject, type MessageReply } from "./internal/anthropic/MessageReply.ts"
import { checkMessagesRequest } from "./internal/anthropic/MessagesRequestCheck.ts"
import { checkCountRequest, inputTokens } from "./internal/anthropic/TokenCountRequest.ts"
import { field, isRecord, stringField } from "./internal/JsonFields.ts"

import type { RecordedRequest } from "./FakeOpenAI.ts"
import { addressOf, headerRecord, readText } from "./internal/IncomingRequest.ts"

export type { RecordedRequest } from "./FakeOpenAI.ts"
export type { MessageReply, ReplyBlock } from "./internal/anthropic/MessageReply.ts"

/** A scripted answer: JSON or a stream, as the request asks; `reply` absent means the default reply. */
export interface Message {
  readonly _tag: "AnthropicMessage"
  readonly reply: MessageReply | undefined
  /** For a stream: destroy the socket after this many events. */
  readonly cutAfterEvents?: number | undefined
  /** For a stream: send an `error` event after this many events, then end. */
  readonly errorAfterEvents?: { readonly events: number; readonly type: string; readonly message: string } | undefined
}

export type FakeBehaviour = Behaviour | Message

/** @example fake.enqueue(FakeAnthropic.message({ content: [{ type: "text", text: "Hi" }], stop_reason: "end_turn" })) */
export const message = (
  reply: MessageReply,
  options: Omit<Message, "_tag" | "reply"> = {}
): Message => ({ _tag: "AnthropicMessage", reply, ...options })

/** @example fake.enqueue(FakeAnthropic.streamError(3, "overloaded_error", "Overloaded")) */
export const streamError = (events: number, type: string, message: string): Message => ({
  _tag: "AnthropicMessage",
  reply: undefined,
  errorAfterEvents: { events, type, message }
})

/** @example fake.enqueue(FakeAnthropic.error(429, "rate_limit_error", "Slow down", { "retry-after": "2" })) */
export const error = (status: number, type: string, message: string, headers: Readonly<Record<string, string>> = {}) =>
  json(status, errorBody(type, message), { "request-id": "req_fake", ...headers })

export interface StartOptions {
  readonly port?: number | undefined
  /** The key `x-api-key` must carry; any non-empty key is accepted when absent. */
  readonly apiKey?: string | undefined
}

export interface FakeAnthropic {
  /** `http://127.0.0.1:PORT`, the base `/v1/messages` is appended to. */
  readonly baseUrl: string
  readonly port: number
  readonly requests: ReadonlyArray<RecordedRequest>
  readonly enqueue: (behaviour: FakeBehaviour) => void
  readonly setDefault: (behaviour: FakeBehaviour) => void
  readonly reset: () => void
  readonly close: () => Promise<void>
}

export const versions = new Set(["2023-06-01", "2023-01-01"])

const MESSAGES = "/v1/messages"
const COUNT_TOKENS = "/v1/messages/count_tokens"

/** The problem with a request's path and headers, as status, error type and message. */
const checkEnvelope = (request: IncomingMessage, apiKey: string | undefined) => {
  const key = request.headers["x-api-key"]
  const version = request.headers["anthropic-version"]
  if (request.method !== "POST" || (request.url !== MESSAGES && request.url !== COUNT_TOKENS)) {
    return [404, "not_found_error", "Not found"] as const
  }
  if (typeof key !== "string" || key === "") {
    return [401, "authentication_error", "x-api-key header is required"] as const
  }
  if (apiKey !== undefined && key !== apiKey) return [401, "authentication_error", "invalid x-api-key"] as const
  if (typeof version !== "string") {
    return [400, "invalid_request_error", "anthropic-version: header is required"] as const
  }
  if (!versions.has(version)) {
    return [400, "invalid_request_error", `anthropic-version: "${version}" is not a valid version`] as const
  }
  if (request.headers["content-type"]?.startsWith("application/json") !== true) {
    return [400, "invalid_request_error", "content-type must be application/json"] as const
  }
  return undefined
}

export const start = async (options: StartOptions = {}): Promise<FakeAnthropic> => {
  const requests: Array<RecordedRequest> = []
  const queue: Array<FakeBehaviour> = []
  let defaultBehaviour: FakeBehaviour = reply()
  let replies = 0
  const closing = new AbortController()

  const answer = async (
    behaviour: FakeBehaviour,
    body: unknown,
    response: ServerResponse,
    writtenAt: Array<number>,
    signal: AbortSignal
  ): Promise<void> => {
    const identity = { id: `msg_fake_${replies}`, model: stringField(body, "model") ?? "claude-fake" }
    const stream = field(body, "stream") === true
    const events = (scripted: MessageReply | undefined) =>
      messageEvents(scripted ?? defaultReply(body, replies), identity)
    const writing = { response, signal, writtenAt, gapMs: 0 }
    switch (behaviour._tag) {
      case "AnthropicMessage": {
        const scripted = behaviour.reply ?? defaultReply(body, replies)
        if (!stream) return sendJson(response, 200, messageObject(scripted, identity))
        const failure = behaviour.errorAfterEvents
        const all = failure === undefined
          ? events(scripted)
          : [
            ...events(scripted).slice(0, failure.events),
            `event: error\ndata: ${JSON.stringify(errorBody(failure.type, failure.message))}\n\n`
          ]
        return writeEvents(all, { ...writing, cutAfter: behaviour.cutAfterEvents })
      }
      case "Reply":
        return stream
          ? writeEvents(events(undefined), writing)
          : sendJson(response, 200, messageObject(defaultReply(body, replies), identity))
      case "Json":
        return sendJson(response, behaviour.status, behaviour.body, behaviour.headers)
      case "Stall":
        return
      case "Delay":
        if (await sleepUnlessAborted(behaviour.ms, signal)) {
          await answer(behaviour.inner, body, response, writtenAt, signal)
        }
        return
      case "ResetConnection":
        return void response.socket?.destroy()
      case "CutStream":
        return writeEvents(events(undefined), { ...writing, cutAfter: behaviour.afterChunks })
      case "SlowStream":
        return writeEvents(events(undefined), { ...writing, gapMs: behaviour.chunkDelayMs })
    }
  }

  /** A count: a queued JSON behaviour (an error) answers in its place, anything else is counted. */
  const count = (body: unknown, response: ServerResponse): void => {
    const problem = checkCountRequest(body)
    if (problem !== undefined) return sendJson(response, 400, errorBody("invalid_request_error", problem))
    const behaviour = queue[0]?._tag === "Json" ? queue.shift() : undefined
    if (behaviour?._tag === "Json") return sendJson(response, behaviour.status, behaviour.body, behaviour.headers)
    return sendJson(response, 200, { input_tokens: isRecord(body) ? inputTokens(body) : 0 })
  }

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const exchangeClosed = new AbortController()
    response.once("close", () => exchangeClosed.abort())
    const text = await readText(request)
    const body = parseBody(text)
    const writtenAt: Array<number> = []
    requests.push({
      method: request.method ?? "GET",
      path: request.url ?? "/",
      headers: headerRecord(request),
      body: body ?? text,
      chunksWrittenAt: writtenAt
    })
    const refused = checkEnvelope(request, options.apiKey)
    if (refused !== undefined) return sendJson(response, refused[0], errorBody(refused[1], refused[2]))
    if (body === undefined) {
      return sendJson(
        response,
        400,
        errorBody("invalid_request_error", "There was an error parsing the body: invalid JSON")
      )
    }
    if (request.url === COUNT_TOKENS) return count(body, response)
    const problem = checkMessagesRequest(body)
    if (problem !== undefined) return sendJson(response, 400, errorBody("invalid_request_error", problem))
    replies += 1
    await answer(
      queue.shift() ?? defaultBehaviour,
      body,
      response,
      writtenAt,
      AbortSignal.any([closing.signal, exchangeClosed.signal])
    )
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy())
  })
  server.keepAliveTimeout = 65_000
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve())
  })
  const { port } = addressOf(server.address())
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    requests,
    enqueue: (behaviour) => void queue.push(behaviour),
    setDefault: (behaviour) => {
      defaultBehaviour = behaviour
    },
    reset: () => {
      requests.length = 0
      queue.length = 0
      defaultBehaviour = reply()
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort()
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

/** The parsed JSON body, or undefined when it is not JSON. */
const parseBody = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
