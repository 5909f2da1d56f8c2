/**
 * A fake Amazon Bedrock runtime on 127.0.0.1 for the Converse and ConverseStream APIs, and
 * InvokeModel(WithResponseStream) for Claude models in Anthropic's shape (ClaudeInvoke). Every
 * request is checked as AWS would: the SigV4 signature recomputed from the known credentials
 * (403 on any mismatch), the path `/model/{modelId}/{converse,converse-stream,invoke,
 * invoke-with-response-stream,count-tokens}`, and the body's shape (400 `ValidationException`).
 * Answers are Converse JSON, Anthropic Messages, binary event-stream frames, or CountTokens'
 * `{inputTokens}` for Claude (internal/bedrock/CountTokens).
 *
 * @example
 * ```ts
 * import { FakeBedrock } from "@switchyard/fake-providers"
 *
 * const fake = await FakeBedrock.start({ credentials: { accessKeyId: "AKID", secretAccessKey: "secret" }, region: "us-east-1" })
 * fake.enqueue(FakeBedrock.error(429, "ThrottlingException", "Too many requests, please wait before trying again."))
 * // target: { provider: "bedrock", custom_host: fake.baseUrl, cloud1_access_key_id: "AKID", … }
 * await fake.close()
 * ```
 */
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { checkInvokeBody, invokeFrames, invokeMessage, isClaudeModel } from "./internal/bedrock/ClaudeInvoke.ts"
import { check } from "./internal/bedrock/ConverseBodyCheck.ts"
import * as CountTokens from "./internal/bedrock/CountTokens.ts"
import { encode, type StreamFrame, textFrames } from "./internal/bedrock/EventFrames.ts"
import { type Credentials, verify } from "./internal/bedrock/SignatureCheck.ts"
import { addressOf, headerRecord, readText } from "./internal/IncomingRequest.ts"

export type { StreamFrame }

/** How the fake answers one request that passed the checks. */
export type BedrockBehaviour =
  | { readonly _tag: "Reply" }
  | { readonly _tag: "Converse"; readonly body: unknown }
  | {
    readonly _tag: "Frames"
    readonly frames: ReadonlyArray<StreamFrame>
    /** Destroys the socket after this many frames. */
    readonly cutAfter: number | undefined
    /** Writes each frame in pieces of this many bytes, so frames span network chunks. */
    readonly bytesPerWrite: number | undefined
  }
  | { readonly _tag: "Error"; readonly status: number; readonly errorType: string; readonly message: string }

/** The default: a text answer (JSON or stream, by the path). */
export const reply = (): BedrockBehaviour => ({ _tag: "Reply" })
/** A 200 Converse answer with this body. */
export const converse = (body: unknown): BedrockBehaviour => ({ _tag: "Converse", body })
/** A ConverseStream answer of these frames. */
export const frames = (
  list: ReadonlyArray<StreamFrame>,
  options: { readonly cutAfter?: number; readonly bytesPerWrite?: number } = {}
): BedrockBehaviour => ({
  _tag: "Frames",
  frames: list,
  cutAfter: options.cutAfter,
  bytesPerWrite: options.bytesPerWrite
})
/** An HTTP error as Bedrock answers it: `{message}` and the `x-amzn-errortype` header. */
export const error = (status: number, errorType: string, message: string): BedrockBehaviour => ({
  _tag: "Error",
  status,
  errorType,
  message
})
/** A stream event frame. */
export const event = (type: string, body: Readonly<Record<string, unknown>>): StreamFrame => ({
  _tag: "Event",
  type,
  body
})
/** A stream exception frame (`throttlingException`, `modelStreamErrorException`, …). */
export const exception = (type: string, message: string): StreamFrame => ({ _tag: "Exception", type, message })
/** The frames of a streamed text answer. */
export { textFrames }

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
  /** The decoded model id of the path. */
  readonly modelId: string
  readonly operation: Operation
}

export interface StartOptions {
  readonly credentials: Credentials
  readonly region: string
  readonly port?: number | undefined
}

export interface FakeBedrock {
  /** `http://127.0.0.1:PORT`, the target's `custom_host`. */
  readonly baseUrl: string
  readonly port: number
  /** Requests that passed every check. */
  readonly requests: ReadonlyArray<RecordedRequest>
  /** Requests refused by a check, with the status and message they got. */
  readonly refused: ReadonlyArray<{ readonly status: number; readonly message: string }>
  readonly enqueue: (behaviour: BedrockBehaviour) => void
  readonly reset: () => void
  readonly close: () => Promise<void>
}

const operations = ["converse", "converse-stream", "invoke", "invoke-with-response-stream"] as const
type Operation = typeof operations[number] | "count-tokens"
const PATH = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream|count-tokens)$/

export const start = async (options: StartOptions): Promise<FakeBedrock> => {
  const requests: Array<RecordedRequest> = []
  const refused: Array<{ status: number; message: string }> = []
  const queue: Array<BedrockBehaviour> = []
  // counted as the fake Anthropic API counts its replies, so both sign thinking alike
  let invocations = 0

  const refuse = (response: ServerResponse, status: number, errorType: string, message: string) => {
    refused.push({ status, message })
    sendError(response, status, errorType, message)
  }

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const text = await readText(request)
    const headers = headerRecord(request)
    const target = request.url ?? "/"
    const failure = await verify(
      { method: request.method ?? "GET", target, headers, body: text },
      options.credentials,
      options.region
    )
    if (failure !== undefined) return refuse(response, failure.status, failure.errorType, failure.message)
    const match = PATH.exec(target.split("?")[0] ?? "")
    if (request.method !== "POST" || match === null) {
      return refuse(response, 404, "UnknownOperationException", `Unknown operation: ${request.method} ${target}`)
    }
    if (headers["content-type"] !== "application/json") {
      return refuse(response, 415, "UnsupportedMediaTypeException", "The content type must be application/json.")
    }
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return refuse(response, 400, "SerializationException", "The request body is not valid JSON.")
    }
    const modelId = decodeURIComponent(match[1] ?? "")
    if (match[2] === "count-tokens") {
      const counted = CountTokens.count(body, modelId)
      if ("problem" in counted) return refuse(response, 400, "ValidationException", counted.problem)
      requests.push({ method: "POST", path: target, headers, body, modelId, operation: "count-tokens" })
      // a queued error answers in place of the count
      const scripted = queue[0]?._tag === "Error" ? queue.shift() : undefined
      if (scripted !== undefined) return answer(scripted, "count-tokens", response)
      return sendMessage(response, { inputTokens: counted.inputTokens })
    }
    const operation = operations.find((name) => name === match[2]) ?? "converse"
    const invoking = operation === "invoke" || operation === "invoke-with-response-stream"
    if (invoking && !isClaudeModel(modelId)) {
      return refuse(
        response,
        400,
        "ValidationException",
        `The fake serves InvokeModel for Claude only, not ${modelId}.`
      )
    }
    const problem = invoking ? checkInvokeBody(body, modelId) : check(body)
    if (problem !== undefined) return refuse(response, 400, "ValidationException", problem)
    requests.push({ method: "POST", path: target, headers, body, modelId, operation })
    const behaviour = queue.shift() ?? reply()
    if (invoking && behaviour._tag === "Reply") {
      invocations += 1
      if (operation === "invoke") return sendMessage(response, invokeMessage(body, modelId, invocations))
      return answer(frames(invokeFrames(body, modelId, invocations)), "invoke-with-response-stream", response)
    }
    await answer(behaviour, operation, response)
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy())
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve())
  })
  const { port } = addressOf(server.address())
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    requests,
    refused,
    enqueue: (behaviour) => {
      queue.push(behaviour)
    },
    reset: () => {
      requests.length = 0
      refused.length = 0
      queue.length = 0
      invocations = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

const defaultConverse = {
  output: { message: { role: "assistant", content: [{ text: "Hello from the fake Bedrock." }] } },
  stopReason: "end_turn",
  usage: { inputTokens: 12, outputTokens: 6, totalTokens: 18 },
  metrics: { latencyMs: 42 }
}

const answer = async (behaviour: BedrockBehaviour, operation: string, response: ServerResponse): Promise<void> => {
  const requestId = randomUUID()
  if (behaviour._tag === "Error") return sendError(response, behaviour.status, behaviour.errorType, behaviour.message)
  if (behaviour._tag === "Converse" || (behaviour._tag === "Reply" && operation === "converse")) {
    const body = behaviour._tag === "Converse" ? behaviour.body : defaultConverse
    response.writeHead(200, { "content-type": "application/json", "x-amzn-requestid": requestId })
    response.end(JSON.stringify(body))
    return
  }
  const list = behaviour._tag === "Frames" ? behaviour.frames : textFrames(["Hello", " from the", " fake Bedrock."])
  const cutAfter = behaviour._tag === "Frames" ? behaviour.cutAfter : undefined
  const step = behaviour._tag === "Frames" ? behaviour.bytesPerWrite : undefined
  response.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": requestId })
  for (const [index, frame] of list.entries()) {
    if (cutAfter !== undefined && index >= cutAfter) {
      response.destroy()
      return
    }
    const bytes = encode(frame)
    for (let offset = 0; offset < bytes.length; offset += step ?? bytes.length) {
      // each write is flushed before the next, so a cut comes after what was written
      await new Promise<void>((resolve) =>
        response.write(bytes.subarray(offset, offset + (step ?? bytes.length)), () => resolve())
      )
    }
  }
  response.end()
}

const sendMessage = (response: ServerResponse, message: unknown) => {
  response.writeHead(200, { "content-type": "application/json", "x-amzn-requestid": randomUUID() })
  response.end(JSON.stringify(message))
}

const sendError = (response: ServerResponse, status: number, errorType: string, message: string) => {
  response.writeHead(status, {
    "content-type": "application/json",
    "x-amzn-errortype": `${errorType}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    "x-amzn-requestid": randomUUID()
  })
  response.end(JSON.stringify({ message }))
}
