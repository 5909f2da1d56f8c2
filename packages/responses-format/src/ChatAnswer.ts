/**
 * A complete chat answer (`chat.completion`) as a `response`: reasoning first, then the message,
 * then one `function_call` item per tool call, as the vendor orders them.
 *
 * @example
 * import { ChatAnswer, ResponseObject } from "@switchyard/responses-format"
 * const response = ChatAnswer.toResponse(chatCompletion, ResponseObject.skeleton(request, "resp_1", 0, "gpt-4o"))
 */
import { ChatReasoning } from "@switchyard/protocol"
import * as ReasoningCarry from "./internal/ReasoningCarry.ts"
import { isRecord } from "./internal/Records.ts"
import * as ResponseObject from "./ResponseObject.ts"

/** The output items of a chat answer's message. */
export const outputOf = (message: unknown): ReadonlyArray<ResponseObject.OutputItem> => {
  if (!isRecord(message)) return []
  const items: Array<ResponseObject.OutputItem> = []
  const reasoning = ChatReasoning.textOf(message)
  const blocks = ChatReasoning.blocksOf(message)
  if (reasoning !== undefined || blocks.length > 0) {
    items.push(reasoningItem(ResponseObject.newId("rs"), reasoning ?? "", blocks))
  }
  const content: Array<ResponseObject.OutputText | ResponseObject.Refusal> = []
  if (typeof message.content === "string" && message.content !== "") {
    content.push({ type: "output_text", text: message.content, annotations: [], logprobs: [] })
  }
  if (typeof message.refusal === "string" && message.refusal !== "") {
    content.push({ type: "refusal", refusal: message.refusal })
  }
  if (content.length > 0) {
    items.push({
      type: "message",
      id: ResponseObject.newId("msg"),
      status: "completed",
      role: "assistant",
      content
    })
  }
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined
    if (fn === undefined || !isRecord(call)) continue
    items.push({
      type: "function_call",
      id: ResponseObject.newId("fc"),
      status: "completed",
      call_id: typeof call.id === "string" ? call.id : ResponseObject.newId("fc"),
      name: typeof fn.name === "string" ? fn.name : "",
      arguments: typeof fn.arguments === "string" ? fn.arguments : ""
    })
  }
  return items
}

/** A reasoning item; the provider's signed blocks ride in `encrypted_content` to be played back. */
export const reasoningItem = (
  id: string,
  text: string,
  blocks: ReadonlyArray<ChatReasoning.ReasoningBlock>
): ResponseObject.ReasoningOutput => ({
  type: "reasoning",
  id,
  summary: text === "" ? [] : [{ type: "summary_text", text }],
  ...(blocks.length > 0 ? { encrypted_content: ReasoningCarry.seal(blocks) } : {})
})

/** The whole answer as a completed (or incomplete) response. */
export const toResponse = (chat: unknown, skeleton: ResponseObject.Response): ResponseObject.Response => {
  const answer = isRecord(chat) ? chat : {}
  const choice = Array.isArray(answer.choices) && isRecord(answer.choices[0]) ? answer.choices[0] : {}
  const finishReason = typeof choice.finish_reason === "string" ? choice.finish_reason : null
  return {
    ...skeleton,
    ...ResponseObject.ending(finishReason),
    model: typeof answer.model === "string" ? answer.model : skeleton.model,
    output: outputOf(choice.message),
    usage: ResponseObject.usageOf(answer.usage)
  }
}
