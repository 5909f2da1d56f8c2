/**
 * Incremental reading of the AWS event-stream encoding (`application/vnd.amazon.eventstream`).
 * Each frame begins with its total length as a 4-byte big-endian integer; frames may span the
 * chunks the network delivers, so bytes are kept until a whole frame is in hand. Each frame is
 * then decoded, CRCs checked, by Smithy's maintained `EventStreamCodec`.
 */
import { EventStreamCodec, type Message } from "@smithy/eventstream-codec"
import { fromUtf8, toUtf8 } from "@smithy/util-utf8"
import { Result } from "effect"

const codec = new EventStreamCodec(toUtf8, fromUtf8)
const PRELUDE_BYTES = 12
const textDecoder = new TextDecoder()

export type { Message }

/** Bytes in, whole decoded frames out; `pending` tells whether a frame was left half-read. */
export class FrameReader {
  #buffer: Uint8Array = new Uint8Array(0)

  get pending(): boolean {
    return this.#buffer.length > 0
  }

  push(bytes: Uint8Array): Result.Result<Array<Message>, string> {
    const buffer = this.#buffer.length === 0 ? bytes : concat(this.#buffer, bytes)
    const frames: Array<Message> = []
    let offset = 0
    while (buffer.length - offset >= PRELUDE_BYTES) {
      const view = new DataView(buffer.buffer, buffer.byteOffset + offset, 4)
      const length = view.getUint32(0, false)
      if (length < PRELUDE_BYTES + 4) return Result.fail(`an event-stream frame declares ${length} bytes`)
      if (buffer.length - offset < length) break
      try {
        frames.push(codec.decode(buffer.subarray(offset, offset + length)))
      } catch (error) {
        return Result.fail(`an event-stream frame could not be decoded (${String(error)})`)
      }
      offset += length
    }
    this.#buffer = buffer.slice(offset)
    return Result.succeed(frames)
  }
}

const concat = (head: Uint8Array, tail: Uint8Array): Uint8Array => {
  const joined = new Uint8Array(head.length + tail.length)
  joined.set(head, 0)
  joined.set(tail, head.length)
  return joined
}

/** A string header's value (`:event-type`, `:message-type`, `:exception-type`, …). */
export const headerOf = (message: Message, name: string): string | undefined => {
  const header = message.headers[name]
  return header?.type === "string" ? header.value : undefined
}

/** The frame's payload as text (JSON for Bedrock's events and exceptions). */
export const bodyText = (message: Message): string => textDecoder.decode(message.body)
