/**
 * The output items the stream state machine (ResponseStream) keeps while it streams them, and how
 * each shows at `output_item.added` and as it stands.
 */
import type { ChatReasoning } from "@switchyard/protocol"
import { reasoningItem } from "../ChatAnswer.ts"
import type * as ResponseObject from "../ResponseObject.ts"

export type Item =
  | { kind: "message"; id: string; index: number; text: string; refusal: string | undefined; open: boolean }
  | { kind: "function_call"; id: string; index: number; callId: string; name: string; args: string; open: boolean }
  | {
    kind: "reasoning"
    id: string
    index: number
    text: string
    blocks: Array<ChatReasoning.ReasoningBlock>
    open: boolean
  }

/** An item as `output_item.added` shows it: empty, in progress. */
export const added = (item: Item): ResponseObject.OutputItem => {
  switch (item.kind) {
    case "message":
      return { type: "message", id: item.id, status: "in_progress", role: "assistant", content: [] }
    case "reasoning":
      return { type: "reasoning", id: item.id, summary: [] }
    case "function_call":
      return {
        type: "function_call",
        id: item.id,
        status: "in_progress",
        call_id: item.callId,
        name: item.name,
        arguments: ""
      }
  }
}

/** An item as it stands; a message cut by `length` is `incomplete`, as the vendor marks it. */
export const outputOf = (item: Item, status: ResponseObject.Status): ResponseObject.OutputItem => {
  switch (item.kind) {
    case "message": {
      const content: Array<ResponseObject.OutputText | ResponseObject.Refusal> = [
        { type: "output_text", text: item.text, annotations: [], logprobs: [] }
      ]
      if (item.refusal !== undefined) content.push({ type: "refusal", refusal: item.refusal })
      const itemStatus = item.open ? "in_progress" : status === "incomplete" ? "incomplete" : "completed"
      return { type: "message", id: item.id, status: itemStatus, role: "assistant", content }
    }
    case "reasoning":
      // the blocks are kept at their chat indexes, which text blocks share: no holes in the output
      return reasoningItem(item.id, item.text, Object.values(item.blocks))
    case "function_call":
      return {
        type: "function_call",
        id: item.id,
        status: item.open ? "in_progress" : "completed",
        call_id: item.callId,
        name: item.name,
        arguments: item.args
      }
  }
}

/** Builds the provider's signed blocks from their stream fragments (see ChatReasoning). */
export const addBlockDelta = (
  blocks: Array<ChatReasoning.ReasoningBlock>,
  fragment: ChatReasoning.BlockDelta
): void => {
  if ("type" in fragment) {
    blocks[fragment.index] = { type: "redacted_thinking", data: fragment.data }
    return
  }
  const existing = blocks[fragment.index]
  const block = existing !== undefined && existing.type === "thinking"
    ? existing
    : { type: "thinking" as const, thinking: "" }
  blocks[fragment.index] = {
    ...block,
    thinking: block.thinking + (fragment.delta.thinking ?? ""),
    ...(fragment.delta.signature !== undefined ? { signature: (block.signature ?? "") + fragment.delta.signature } : {})
  }
}
