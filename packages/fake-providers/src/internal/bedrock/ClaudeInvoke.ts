/**
 * Claude through InvokeModel and InvokeModelWithResponseStream as the fake serves it
 * (docs.aws.amazon.com, "Anthropic Claude Messages API"): the body is Anthropic's Messages body
 * without `model` (in the path) and `stream`, with `anthropic_version: "bedrock-2023-05-31"` and
 * optional `anthropic_beta` (an array); the answer is Anthropic's Message, the stream event-stream
 * frames of type `chunk` whose `bytes` hold one Anthropic event each, base64-encoded. Replies are
 * the fake Anthropic API's own, so an answer through Bedrock can be compared with one from it.
 */
import { defaultReply, messageEventData, messageObject } from "../anthropic/MessageReply.ts"
import { checkMessagesRequest } from "../anthropic/MessagesRequestCheck.ts"
import { isRecord } from "../JsonFields.ts"
import type { StreamFrame } from "./EventFrames.ts"

export const ANTHROPIC_VERSION = "bedrock-2023-05-31"

/** Claude's Bedrock ids, cross-region profiles and ARNs. */
export const isClaudeModel = (modelId: string): boolean => /(^|[./])anthropic\.claude/.test(modelId)

/** The first problem of an InvokeModel body for Claude, worded as Bedrock words it. */
export const checkInvokeBody = (body: unknown, modelId: string): string | undefined => {
  if (!isRecord(body)) return "The body must be a JSON object."
  if (body.anthropic_version !== ANTHROPIC_VERSION) {
    return `anthropic_version: must be "${ANTHROPIC_VERSION}"`
  }
  for (const key of ["model", "stream"]) {
    if (key in body) return `extraneous key [${key}] is not permitted`
  }
  const beta = body.anthropic_beta
  if (beta !== undefined && (!Array.isArray(beta) || !beta.every((name) => typeof name === "string"))) {
    return "anthropic_beta: must be an array of strings"
  }
  const { anthropic_version: _version, anthropic_beta: _beta, ...messages } = body
  return checkMessagesRequest({ ...messages, model: modelId })
}

const identityOf = (modelId: string, ordinal: number) => ({
  id: `msg_bdrk_fake_${ordinal}`,
  model: modelId.replace(/^.*anthropic\./, "").replace(/-v\d+(:\d+)?$/, "")
})

/** The Message InvokeModel answers: the fake Anthropic API's default reply. */
export const invokeMessage = (body: unknown, modelId: string, ordinal: number) =>
  messageObject(defaultReply(body, ordinal), identityOf(modelId, ordinal))

/** The frames InvokeModelWithResponseStream answers, Bedrock's metrics on `message_stop` as AWS adds them. */
export const invokeFrames = (body: unknown, modelId: string, ordinal: number): Array<StreamFrame> =>
  messageEventData(defaultReply(body, ordinal), identityOf(modelId, ordinal)).map((event) => {
    const data = event.type === "message_stop"
      ? { ...event, "amazon-bedrock-invocationMetrics": { inputTokenCount: 1, outputTokenCount: 1 } }
      : event
    return { _tag: "Event", type: "chunk", body: { bytes: Buffer.from(JSON.stringify(data)).toString("base64") } }
  })
