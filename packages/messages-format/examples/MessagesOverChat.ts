import type { GatewayRequest } from "@switchyard/core"
import { ChatToMessage, MessagesRequest, MessagesStream, MessagesToChat } from "@switchyard/messages-format"
import type { InvalidInput } from "@switchyard/protocol"
import { Result } from "effect"

// a Messages request as the chat request every provider adapter speaks (or InvalidInput naming the member)
export const toChat = (body: unknown): Result.Result<GatewayRequest.JsonObject, InvalidInput.InvalidInput> =>
  Result.map(MessagesRequest.decode(body), MessagesToChat.toChatRequest)

// a chat answer as an Anthropic Message
export const toMessage = (completion: unknown) => ChatToMessage.toMessage(completion)

// a chat chunk stream as Anthropic's stream events, through the state machine
export const toEvents = (chunks: ReadonlyArray<unknown>, estimatedInputTokens: number) => {
  const state = new MessagesStream.MessagesStreamState({ estimatedInputTokens, model: "claude-sonnet-4-5" })
  return [...chunks.flatMap((chunk) => state.next(chunk)), ...state.end()]
}
