/**
 * A provider's signed reasoning blocks (Anthropic's thinking with its signature, or a redacted
 * block) carried through a reasoning item's `encrypted_content`, so that a client, or a stored
 * response behind `previous_response_id`, plays them back to the provider that checks them.
 * The text is opaque to clients, as the vendor's own encrypted content is.
 */
import { ChatReasoning } from "@switchyard/protocol"
import { Schema } from "effect"

const PREFIX = "swy1:"
const decodeBlocks = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Array(ChatReasoning.ReasoningBlock)))

export const seal = (blocks: ReadonlyArray<ChatReasoning.ReasoningBlock>): string =>
  PREFIX + Buffer.from(JSON.stringify(blocks)).toString("base64url")

/** The blocks `seal` made, or none for any other text (another vendor's encrypted content). */
export const open = (text: string | null | undefined): ReadonlyArray<ChatReasoning.ReasoningBlock> => {
  if (typeof text !== "string" || !text.startsWith(PREFIX)) return []
  const decoded = decodeBlocks(Buffer.from(text.slice(PREFIX.length), "base64url").toString())
  return decoded._tag === "Some" ? decoded.value : []
}
