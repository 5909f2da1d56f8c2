/**
 * The chat completion request a run sends through the pipeline: the run's model and
 * instructions (the assistant's, or the run's own) as the system message, then the thread's
 * messages oldest first, with the run's tools and sampling parameters.
 *
 * @example
 * import { RunRequest } from "@switchyard/assistants"
 * const body = RunRequest.chatBody(run, messages) // { model, messages: [{ role: "system", … }, …] }
 */
import type { GatewayRequest } from "@switchyard/core"
import type { ThreadMessage, ThreadRun } from "@switchyard/protocol"

type ChatPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image_url"; readonly image_url: { readonly url: string; readonly detail?: string } }

/**
 * A stored message as a chat message. Text parts stay text; image URLs stay images. An
 * `image_file` part names a file the gateway does not hold, so it cannot be sent and is left out.
 */
const chatContent = (content: ReadonlyArray<ThreadMessage.MessageContent>): string | ReadonlyArray<ChatPart> => {
  const parts: Array<ChatPart> = []
  for (const part of content) {
    if (part.type === "text") parts.push({ type: "text", text: part.text.value })
    if (part.type === "image_url") parts.push({ type: "image_url", image_url: part.image_url })
  }
  // text alone goes as a string, which every provider accepts
  return parts.every((part) => part.type === "text") ? parts.map((part) => part.text).join("\n") : parts
}

/** A function the model called in an earlier round of this run, with the output the caller submitted. */
export interface AnsweredCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
  readonly output: string
}

/**
 * After the thread's messages, each round of function calls this run made: the assistant's calls,
 * then one `tool` message per output, as a chat conversation with tools has them.
 */
export const chatBody = (
  run: ThreadRun.ThreadRun,
  messages: ReadonlyArray<ThreadMessage.ThreadMessage>,
  rounds: ReadonlyArray<ReadonlyArray<AnsweredCall>> = []
): GatewayRequest.JsonObject => {
  const conversation: Array<GatewayRequest.JsonObject> = messages.map((message) => ({
    role: message.role,
    content: chatContent(message.content)
  }))
  for (const round of rounds) {
    conversation.push({
      role: "assistant",
      content: null,
      tool_calls: round.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments }
      }))
    })
    for (const call of round) conversation.push({ role: "tool", tool_call_id: call.id, content: call.output })
  }
  return {
    model: run.model,
    messages: run.instructions === "" ? conversation : [{ role: "system", content: run.instructions }, ...conversation],
    ...(run.tools.length === 0 ? {} : { tools: run.tools, tool_choice: run.tool_choice }),
    ...(run.tools.length > 1 ? { parallel_tool_calls: run.parallel_tool_calls } : {}),
    ...(run.temperature === null ? {} : { temperature: run.temperature }),
    ...(run.top_p === null ? {} : { top_p: run.top_p }),
    ...(run.max_completion_tokens === null ? {} : { max_tokens: run.max_completion_tokens }),
    ...(run.response_format === "auto" ? {} : { response_format: run.response_format })
  }
}
