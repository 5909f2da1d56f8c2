/**
 * @since 0.1.0
 */
export * as ChatToMessage from "./ChatToMessage.ts"
export * as MessagesError from "./MessagesError.ts"
export * as MessagesRequest from "./MessagesRequest.ts"
export * as MessagesStream from "./MessagesStream.ts"
export * as MessagesToChat from "./MessagesToChat.ts"
export * as TokenCount from "./TokenCount.ts"
export * as TokenEstimate from "./TokenEstimate.ts"
