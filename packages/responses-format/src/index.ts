/**
 * The OpenAI Responses API as an edge of the gateway: requests translated into the chat request
 * every provider adapter speaks, answers and streams translated back, and stored responses.
 *
 * @since 0.1.0
 */
export * as ChatAnswer from "./ChatAnswer.ts"
export * as ChatRequest from "./ChatRequest.ts"
export * as Conversation from "./Conversation.ts"
export * as NativeBody from "./NativeBody.ts"
export * as ResponseObject from "./ResponseObject.ts"
export * as ResponseRetention from "./ResponseRetention.ts"
export * as ResponsesRequest from "./ResponsesRequest.ts"
export * as ResponseStore from "./ResponseStore.ts"
export * as ResponseStream from "./ResponseStream.ts"
