/**
 * The request as a provider that serves the Responses API itself takes it (OpenAI, Azure OpenAI:
 * `GatewayRequest.native`): the client's own body, with the conversation the gateway keeps
 * written out as input items instead of `previous_response_id` (the vendor never saw the
 * gateway's responses), the gateway's item ids and statuses left out, and reasoning items left
 * out (the vendor accepts only its own, which a translated answer does not carry).
 *
 * @example
 * import { NativeBody } from "@switchyard/responses-format"
 * const body = NativeBody.make(rawBody, conversation.items)
 */
import type * as ChatRequest from "./ChatRequest.ts"

type Json = Record<string, unknown>

export const make = (body: Readonly<Json>, items: ReadonlyArray<ChatRequest.Item>): Json => {
  const native: Json = { ...body, input: items.filter((item) => item.type !== "reasoning").map(withoutIds) }
  delete native.previous_response_id
  return native
}

const withoutIds = (item: ChatRequest.Item): Json => {
  const copy: Json = { ...item }
  delete copy.id
  delete copy.status
  return copy
}
