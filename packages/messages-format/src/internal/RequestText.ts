/**
 * The text a model reads in a Messages request (system, messages, tool definitions) and the images
 * and PDFs it sees, for the token estimate and the tokenizer count alike.
 */
import type * as MessagesRequest from "../MessagesRequest.ts"

export type Counted = Pick<MessagesRequest.MessagesRequest, "system" | "messages" | "tools">

export interface RequestText {
  readonly texts: ReadonlyArray<string>
  /** Images and PDFs, counted apart: no text tokenizer measures them. */
  readonly images: number
}

export const textOf = (request: Counted): RequestText => {
  const texts: Array<string> = []
  let images = 0
  const system = request.system
  if (typeof system === "string") texts.push(system)
  else if (system !== undefined) { for (const block of system) texts.push(block.text) }
  for (const message of request.messages) {
    if (typeof message.content === "string") {
      texts.push(message.content)
      continue
    }
    for (const block of message.content) {
      switch (block.type) {
        case "text":
          texts.push(block.text)
          break
        case "image":
          images += 1
          break
        case "document":
          if (block.source.type === "text") texts.push(block.source.data)
          else images += 1
          break
        case "tool_use":
          texts.push(block.name, JSON.stringify(block.input))
          break
        case "tool_result":
          if (typeof block.content === "string") texts.push(block.content)
          else {
            for (const part of block.content ?? []) {
              if (part.type === "text") texts.push(part.text)
              else images += 1
            }
          }
          break
        case "thinking":
          texts.push(block.thinking)
          break
        case "redacted_thinking":
          break
      }
    }
  }
  for (const tool of request.tools ?? []) {
    texts.push(tool.name, tool.description ?? "", JSON.stringify(tool.input_schema))
  }
  return { texts, images }
}
