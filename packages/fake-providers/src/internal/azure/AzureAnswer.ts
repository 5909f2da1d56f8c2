/**
 * The fake's answers in Azure's shapes: OpenAI bodies, plus the content-filter annotations Azure
 * OpenAI adds (`prompt_filter_results`, per-choice `content_filter_results`) and its stream's
 * opening chunk that carries only the prompt's filter results.
 */
import { chatCompletion, chatCompletionEvents, readChatRequest, type ReplyIdentity } from "../ChatCompletionReply.ts"
import { embeddingList } from "../EmbeddingsReply.ts"
import { isRecord } from "../JsonFields.ts"
import * as ResponsesReply from "../ResponsesReply.ts"
import { textCompletion, textCompletionEvents } from "../TextCompletionReply.ts"
import type { AzureRoute } from "./AzureRequestCheck.ts"

export type AzureAnswer =
  | { readonly _tag: "Body"; readonly body: unknown }
  | { readonly _tag: "Events"; readonly events: ReadonlyArray<string> }

const safe = { filtered: false, severity: "safe" }
const contentFilterResults = { hate: safe, self_harm: safe, sexual: safe, violence: safe }
const promptFilterResults = [{ prompt_index: 0, content_filter_results: contentFilterResults }]

const sseEvent = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`

/** Azure OpenAI's first streamed chunk: no choices, no id, only the prompt's filter results. */
const promptFilterEvent = sseEvent({
  choices: [],
  created: 0,
  id: "",
  model: "",
  object: "",
  prompt_filter_results: promptFilterResults
})

export const answer = (route: AzureRoute, body: unknown, identity: ReplyIdentity): AzureAnswer => {
  if (route._tag === "AzureOpenAI" && route.operation === "responses") {
    const request = { ...(isRecord(body) ? body : {}), model: route.model }
    return ResponsesReply.isStreamed(request)
      ? { _tag: "Events", events: ResponsesReply.events(request, identity) }
      : { _tag: "Body", body: ResponsesReply.response(request, identity) }
  }
  if (route._tag === "AzureOpenAI" && route.operation === "embeddings") {
    return { _tag: "Body", body: { ...embeddingList(body), model: route.model } }
  }
  if (route._tag === "AzureOpenAI" && route.operation === "completions") {
    const request = { ...(isRecord(body) ? body : {}), model: route.model }
    return readChatRequest(body).stream
      ? { _tag: "Events", events: textCompletionEvents(request, identity) }
      : { _tag: "Body", body: textCompletion(request, identity) }
  }
  const chat = { ...readChatRequest(body), model: route.model }
  if (chat.stream) return { _tag: "Events", events: streamEvents(route, body, identity) }
  const completion = chatCompletion(chat, identity)
  return {
    _tag: "Body",
    body: route._tag === "AzureOpenAI"
      ? {
        ...completion,
        prompt_filter_results: promptFilterResults,
        choices: completion.choices.map((choice) => ({ ...choice, content_filter_results: contentFilterResults }))
      }
      : completion
  }
}

/** The streamed chat reply for a route, whatever the request asked for: what stream behaviours send. */
export const streamEvents = (route: AzureRoute, body: unknown, identity: ReplyIdentity): ReadonlyArray<string> => {
  if (route._tag === "AzureOpenAI" && route.operation === "responses") {
    return ResponsesReply.events({ ...(isRecord(body) ? body : {}), model: route.model, stream: true }, identity)
  }
  const events = chatCompletionEvents({ ...readChatRequest(body), model: route.model }, identity)
  return route._tag === "AzureOpenAI" ? [promptFilterEvent, ...events] : events
}
