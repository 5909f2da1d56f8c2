/**
 * The conversation a request continues, from the store: the items of `previous_response_id`
 * (what that response answered, then its output) before the request's own input, and each
 * `item_reference` replaced by the stored output item it names. Both answer 400 naming the
 * member when the workspace has no such response or item.
 *
 * @example
 * import { Conversation } from "@switchyard/responses-format"
 * const { items, inputOffset } = yield* Conversation.expand(store, workspaceId, request)
 */
import { GatewayError } from "@switchyard/core"
import { Effect, Schema } from "effect"
import * as ChatRequest from "./ChatRequest.ts"
import * as ResponsesRequest from "./ResponsesRequest.ts"
import type * as ResponseStore from "./ResponseStore.ts"

export interface Expanded {
  /** The whole conversation, stored items first: what the response answers, and what it stores. */
  readonly items: ReadonlyArray<ChatRequest.Item>
  /** Where the request's own input starts in `items`. */
  readonly inputOffset: number
  /** The stored response it continues (`previous_response_id`); null when none. */
  readonly previousResponseId: string | null
}

type Failure = GatewayError.InvalidRequest | GatewayError.InternalError

const decodeItem = Schema.decodeUnknownOption(ResponsesRequest.InputItem)

/** Stored items were written by the gateway; one that no longer decodes is skipped, not fatal. */
const storedItems = (values: ReadonlyArray<unknown>): Array<ChatRequest.Item> => {
  const items: Array<ChatRequest.Item> = []
  for (const value of values) {
    const decoded = decodeItem(value)
    if (decoded._tag === "Some" && decoded.value.type !== "item_reference") items.push(decoded.value)
  }
  return items
}

export const expand = (
  store: ResponseStore.ResponseStore["Service"],
  workspaceId: string,
  request: ResponsesRequest.ResponsesRequest
): Effect.Effect<Expanded, Failure> =>
  Effect.gen(function*() {
    const previousId = request.previous_response_id ?? null
    let history: Array<ChatRequest.Item> = []
    if (previousId !== null) {
      const previous = yield* store.get(workspaceId, previousId).pipe(
        Effect.catchTag("NotFound", () =>
          Effect.fail(
            new GatewayError.InvalidRequest({
              message: `previous_response_id: no stored response with id "${previousId}" in this workspace`,
              param: "previous_response_id"
            })
          ))
      )
      // not spread as a call's arguments: a long conversation's items could pass the stack's limit
      history = storedItems([...previous.input, ...previous.response.output])
    }
    const own: Array<ChatRequest.Item> = []
    for (const [index, item] of ChatRequest.inputItems(request).entries()) {
      if (item.type !== "item_reference") {
        own.push(item)
        continue
      }
      const referenced = storedItems([yield* store.item(workspaceId, item.id)])
      if (referenced.length === 0) {
        return yield* new GatewayError.InvalidRequest({
          message: `input[${index}].id: no stored item with id "${item.id}" in this workspace`,
          param: `input[${index}].id`
        })
      }
      // the client plays back an item the conversation already holds: keep it once
      if (!history.some((kept) => "id" in kept && kept.id === item.id)) own.push(...referenced)
    }
    return { items: [...history, ...own], inputOffset: history.length, previousResponseId: previousId }
  })
