/**
 * `streamGenerateContent?alt=sse` as OpenAI chunks, one event at a time. Each SSE `data:` payload
 * is a whole `GenerateContentResponse` holding the next parts of each candidate; the last ones carry
 * `finishReason` and the final `usageMetadata`. Gemini sends no `[DONE]`: a stream that ends before
 * every candidate it started has a finish reason was cut, and ends with `UpstreamUnreachable`.
 */
import { GatewayError, type GatewayRequest } from "@switchyard/core"
import { Effect, Schema, Stream } from "effect"
import { Sse } from "effect/encoding"
import { parseJsonObject } from "../UpstreamCall.ts"
import type { UpstreamResponse } from "../UpstreamClient.ts"
import {
  type Candidate,
  finishReasonOf,
  GenerateContentResponse,
  type Identity,
  toolCallOf,
  type UsageMetadata,
  usageOf
} from "./GeminiResponse.ts"

type Chunk = GatewayRequest.JsonObject

const ErrorEvent = Schema.Struct({ error: Schema.Struct({ message: Schema.String }) })
const decodeEvent = Schema.decodeUnknownOption(GenerateContentResponse)
const decodeError = Schema.decodeUnknownOption(ErrorEvent)

export const toChunks = (
  provider: string,
  response: UpstreamResponse,
  identity: Identity,
  includeUsage: boolean
): Stream.Stream<Chunk, GatewayError.UpstreamUnreachable> =>
  Stream.suspend(() => {
    const state = new StreamState(identity)
    const fail = (message: string) => new GatewayError.UpstreamUnreachable({ provider, message })
    return response.stream.pipe(
      Stream.decodeText,
      Stream.pipeThroughChannel(Sse.decode()),
      Stream.mapError(() => fail("the stream was cut")),
      Stream.mapEffect((event) => {
        const json = parseJsonObject(event.data)
        const error = decodeError(json)
        if (error._tag === "Some") return Effect.fail(fail(`the stream failed: ${error.value.error.message}`))
        const decoded = decodeEvent(json)
        return decoded._tag === "Some"
          ? Effect.succeed(state.chunksOf(decoded.value))
          : Effect.fail(fail("the stream carried an event that is not a GenerateContentResponse"))
      }),
      Stream.flattenIterable,
      Stream.concat(Stream.suspend(() =>
        state.complete ? Stream.fromIterable(state.endChunks(includeUsage)) : Stream.fail(fail("the stream was cut"))
      ))
    )
  })

interface CandidateState {
  tools: number
  finished: boolean
}

/** What the stream has seen so far: one instance per stream, advanced event by event. */
class StreamState {
  readonly #identity: Identity
  readonly #candidates = new Map<number, CandidateState>()
  #calls = 0
  #blocked = false
  #model: string | undefined
  #usage: UsageMetadata | undefined

  constructor(identity: Identity) {
    this.#identity = identity
  }

  /** Done when the prompt was blocked, or when every candidate that began has finished. */
  get complete(): boolean {
    if (this.#blocked) return true
    if (this.#candidates.size === 0) return false
    for (const candidate of this.#candidates.values()) if (!candidate.finished) return false
    return true
  }

  chunksOf(response: GenerateContentResponse): ReadonlyArray<Chunk> {
    this.#model ??= response.modelVersion
    if (response.usageMetadata !== undefined) this.#usage = response.usageMetadata
    const candidates = response.candidates ?? []
    if (candidates.length === 0 && response.promptFeedback?.blockReason !== undefined) {
      this.#blocked = true
      return [
        this.#chunk(0, { role: "assistant", content: "" }, null),
        this.#chunk(0, {}, "content_filter")
      ]
    }
    return candidates.flatMap((candidate, position) => this.#candidateChunks(candidate, candidate.index ?? position))
  }

  endChunks(includeUsage: boolean): ReadonlyArray<Chunk> {
    return includeUsage && this.#usage !== undefined
      ? [{ ...this.#envelope(), choices: [], usage: usageOf(this.#usage) }]
      : []
  }

  #candidateChunks(candidate: Candidate, index: number): ReadonlyArray<Chunk> {
    const chunks: Array<Chunk> = []
    let state = this.#candidates.get(index)
    if (state === undefined) {
      state = { tools: 0, finished: false }
      this.#candidates.set(index, state)
      chunks.push(this.#chunk(index, { role: "assistant", content: "" }, null))
    }
    let content = ""
    let reasoning = ""
    const toolCalls: Array<unknown> = []
    for (const part of candidate.content?.parts ?? []) {
      if (part.functionCall !== undefined) {
        const call = toolCallOf(part.functionCall, this.#identity.callId(this.#calls++))
        toolCalls.push({ index: state.tools++, ...call })
      } else if (part.thought === true) reasoning += part.text ?? ""
      else content += part.text ?? ""
    }
    const delta: Record<string, unknown> = {}
    if (content !== "") delta.content = content
    if (reasoning !== "" && this.#identity.reasoning) delta.reasoning_content = reasoning
    if (toolCalls.length > 0) delta.tool_calls = toolCalls
    if (Object.keys(delta).length > 0) chunks.push(this.#chunk(index, delta, null))
    if (candidate.finishReason !== undefined && !state.finished) {
      state.finished = true
      chunks.push(this.#chunk(index, {}, finishReasonOf(candidate.finishReason, state.tools > 0)))
    }
    return chunks
  }

  #envelope() {
    return {
      id: this.#identity.id,
      object: "chat.completion.chunk",
      created: this.#identity.created,
      model: this.#model ?? this.#identity.model
    }
  }

  #chunk(index: number, delta: Readonly<Record<string, unknown>>, finish: string | null): Chunk {
    return { ...this.#envelope(), choices: [{ index, delta, finish_reason: finish }] }
  }
}
