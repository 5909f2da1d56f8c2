import { chatCompletion, chatCompletionEvents, readChatRequest, type ReplyIdentity } from "./ChatCompletionReply.ts"
import { embeddingList } from "./EmbeddingsReply.ts"
import { isRecord } from "./JsonFields.ts"
import { invalidJson, unknownUrl } from "./OpenAIErrorBody.ts"
import * as ResponsesReply from "./ResponsesReply.ts"
import { textCompletion, textCompletionEvents } from "./TextCompletionReply.ts"

/** What the default behaviour answers: a JSON body, or SSE events. */
export type EndpointAnswer =
  | { readonly _tag: "Body"; readonly status: number; readonly body: unknown }
  | { readonly _tag: "Events"; readonly events: ReadonlyArray<string> }

const body = (status: number, value: unknown): EndpointAnswer => ({ _tag: "Body", status, body: value })

/** The route table: one line per endpoint the fake serves. */
export const endpointAnswer = (
  method: string,
  path: string,
  request: unknown,
  identity: ReplyIdentity
): EndpointAnswer => {
  const route = `${method} ${path}`
  if (!knownRoutes.has(route)) return body(404, unknownUrl(method, path))
  if (!isRecord(request)) return body(400, invalidJson())
  switch (route) {
    case "POST /v1/chat/completions":
      return chatAnswer(request, identity)
    case "POST /v1/responses":
      return ResponsesReply.isStreamed(request)
        ? { _tag: "Events", events: ResponsesReply.events(request, identity) }
        : body(200, ResponsesReply.response(request, identity))
    case "POST /v1/completions":
      return request.stream === true
        ? { _tag: "Events", events: textCompletionEvents(request, identity) }
        : body(200, textCompletion(request, identity))
    default:
      return body(200, embeddingList(request))
  }
}

const knownRoutes = new Set([
  "POST /v1/chat/completions",
  "POST /v1/completions",
  "POST /v1/embeddings",
  "POST /v1/responses"
])

const chatAnswer = (request: unknown, identity: ReplyIdentity): EndpointAnswer => {
  const chat = readChatRequest(request)
  return chat.stream
    ? { _tag: "Events", events: chatCompletionEvents(chat, identity) }
    : body(200, chatCompletion(chat, identity))
}

/** The streamed chat reply, whatever the request asked for: what the stream behaviours send. */
export const chatStreamEvents = (request: unknown, identity: ReplyIdentity): ReadonlyArray<string> =>
  chatCompletionEvents(readChatRequest(request), identity)
