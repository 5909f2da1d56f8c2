import { ChatRequest, ResponseObject, ResponsesRequest, ResponseStream } from "@switchyard/responses-format"
import { Result } from "effect"

const request = Result.getOrThrow(ResponsesRequest.decode({ model: "gpt-4o-mini", input: "Say hi", stream: true }))
// the chat body to run through the pipeline (Gateway.handle with endpoint "chat.completions")
const items = ChatRequest.inputItems(request).filter((item) => item.type !== "item_reference")
const chat = Result.getOrThrow(ChatRequest.toChat(request, items, 0))

// chat chunks in, Responses events out, each with its sequence_number
const skeleton = ResponseObject.skeleton(request, ResponseObject.newId("resp"), 1_760_000_000, request.model)
const machine = new ResponseStream.StreamTranslator(skeleton)
const chunks = [
  { choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }] },
  { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  { choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }
]
const events = [...machine.start(), ...chunks.flatMap((chunk) => machine.chunk(chunk)), ...machine.finish()]
// README end

/** The example's values, typed for the test. */
export const translated: {
  readonly chat: Record<string, unknown>
  readonly events: ReadonlyArray<ResponseStream.Event>
  readonly response: ResponseObject.Response | undefined
} = { chat, events, response: machine.response() }
