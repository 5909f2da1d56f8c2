/**
 * Message objects of a chat request, one per role: `system`, `developer`,
 * `user`, `assistant`, `tool` and the deprecated `function`. Messages keep
 * unknown members, which are forwarded to the provider.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { AssistantPart, TextOnlyPart, UserPart } from "./ChatContentPart.ts"
import { FunctionCall, ToolCall } from "./ChatTool.ts"
import { discriminatorAnnotation } from "./internal/Problem.ts"
import { openStruct } from "./internal/Structs.ts"

const TextContent = Schema.Union([Schema.String, Schema.Array(TextOnlyPart)])

/** @since 0.1.0 */
export const SystemMessage = openStruct({
  role: Schema.Literal("system"),
  content: TextContent,
  name: Schema.optionalKey(Schema.String)
})

/** @since 0.1.0 */
export const DeveloperMessage = openStruct({
  role: Schema.Literal("developer"),
  content: TextContent,
  name: Schema.optionalKey(Schema.String)
})

/** @since 0.1.0 */
export const UserMessage = openStruct({
  role: Schema.Literal("user"),
  content: Schema.Union([Schema.String, Schema.Array(UserPart)]),
  name: Schema.optionalKey(Schema.String)
})

/**
 * An assistant turn. `content` may be null or absent only when the turn is a
 * call (`tool_calls` or `function_call`): a turn that says nothing and calls
 * nothing is an error in every provider.
 *
 * @since 0.1.0
 */
export const AssistantMessage = openStruct({
  role: Schema.Literal("assistant"),
  content: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.String, Schema.Array(AssistantPart)]))),
  name: Schema.optionalKey(Schema.String),
  refusal: Schema.optionalKey(Schema.NullOr(Schema.String)),
  tool_calls: Schema.optionalKey(Schema.Array(ToolCall)),
  function_call: Schema.optionalKey(Schema.NullOr(FunctionCall))
}).check(
  Schema.makeFilter((message) => {
    if (message.content !== undefined && message.content !== null) return undefined
    const calls = (message.tool_calls?.length ?? 0) > 0 || (message.function_call ?? null) !== null
    return calls ? undefined : { path: ["content"], issue: "is required unless tool_calls or function_call is given" }
  })
)

/** The result of a tool call, answering `tool_call_id`. @since 0.1.0 */
export const ToolMessage = openStruct({
  role: Schema.Literal("tool"),
  content: TextContent,
  tool_call_id: Schema.String
})

/** Deprecated result of a function call, naming the function. @since 0.1.0 */
export const FunctionMessage = openStruct({
  role: Schema.Literal("function"),
  content: Schema.NullOr(Schema.String),
  name: Schema.String
})

/**
 * Any message of a chat request, told apart by `role`.
 *
 * @example
 * import { Schema } from "effect"
 * import { ChatMessage } from "@switchyard/protocol"
 * const message = Schema.decodeUnknownSync(ChatMessage.ChatMessage)({ role: "user", content: "hi" })
 *
 * @since 0.1.0
 */
export const ChatMessage = Schema.Union([
  SystemMessage,
  DeveloperMessage,
  UserMessage,
  AssistantMessage,
  ToolMessage,
  FunctionMessage
]).annotate({ [discriminatorAnnotation]: "role", expected: "a message object" })

/** @since 0.1.0 */
export type ChatMessage = typeof ChatMessage.Type
