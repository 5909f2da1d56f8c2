/**
 * ConverseStream frames in the AWS event-stream encoding, built with Smithy's EventStreamCodec.
 * Bedrock's events carry `:event-type`, `:content-type: application/json` and
 * `:message-type: event`; its exceptions `:exception-type` and `:message-type: exception`. Real
 * payloads carry a `p` member of padding characters, kept here so decoders learn to ignore it.
 */
import { EventStreamCodec } from "@smithy/eventstream-codec"
import { fromUtf8, toUtf8 } from "@smithy/util-utf8"

const codec = new EventStreamCodec(toUtf8, fromUtf8)

/** One frame of a ConverseStream answer. */
export type StreamFrame =
  | { readonly _tag: "Event"; readonly type: string; readonly body: Readonly<Record<string, unknown>> }
  | { readonly _tag: "Exception"; readonly type: string; readonly message: string }

const PADDING = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123"

export const encode = (frame: StreamFrame): Uint8Array =>
  frame._tag === "Event"
    ? codec.encode({
      headers: {
        ":event-type": { type: "string", value: frame.type },
        ":content-type": { type: "string", value: "application/json" },
        ":message-type": { type: "string", value: "event" }
      },
      body: fromUtf8(JSON.stringify({ ...frame.body, p: PADDING.slice(0, 7 + (frame.type.length % 20)) }))
    })
    : codec.encode({
      headers: {
        ":exception-type": { type: "string", value: frame.type },
        ":content-type": { type: "string", value: "application/json" },
        ":message-type": { type: "string", value: "exception" }
      },
      body: fromUtf8(JSON.stringify({ message: frame.message }))
    })

/** The frames of a plain text answer, as Bedrock streams one. */
export const textFrames = (pieces: ReadonlyArray<string>, stopReason = "end_turn"): Array<StreamFrame> => {
  const event = (type: string, body: Readonly<Record<string, unknown>>): StreamFrame => ({ _tag: "Event", type, body })
  const output = pieces.join("").split(/\s+/).filter((w) => w !== "").length
  return [
    event("messageStart", { role: "assistant" }),
    ...pieces.map((text) => event("contentBlockDelta", { contentBlockIndex: 0, delta: { text } })),
    event("contentBlockStop", { contentBlockIndex: 0 }),
    event("messageStop", { stopReason }),
    event("metadata", {
      usage: { inputTokens: 12, outputTokens: output, totalTokens: 12 + output },
      metrics: { latencyMs: 42 }
    })
  ]
}
