/**
 * How the fake answers one request: a tagged union with one constructor per case.
 *
 * @example
 * ```ts
 * import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
 *
 * const fake = await FakeOpenAI.start()
 * fake.enqueue(Behaviour.json(429, { error: { message: "slow down" } }, { "retry-after": "2" }))
 * fake.enqueue(Behaviour.delay(50, Behaviour.reply()))
 * ```
 */
export type Behaviour = Reply | Json | Stall | Delay | ResetConnection | CutStream | SlowStream

/** A valid OpenAI response for the endpoint (404 in OpenAI's error shape for unknown paths). */
export interface Reply {
  readonly _tag: "Reply"
}

/** Any status, body and headers. A string body is sent as is; anything else as JSON. */
export interface Json {
  readonly _tag: "Json"
  readonly status: number
  readonly body: unknown
  readonly headers: Readonly<Record<string, string>>
}

/** Never answers; the socket is released when the client gives up or the fake closes. */
export interface Stall {
  readonly _tag: "Stall"
}

/** Waits `ms`, then behaves as `inner`. */
export interface Delay {
  readonly _tag: "Delay"
  readonly ms: number
  readonly inner: Behaviour
}

/** Destroys the socket without answering. */
export interface ResetConnection {
  readonly _tag: "ResetConnection"
}

/** Streams the first `afterChunks` SSE events of the chat reply, then destroys the socket. */
export interface CutStream {
  readonly _tag: "CutStream"
  readonly afterChunks: number
}

/** Streams the chat reply with `chunkDelayMs` between SSE events, recording when each was written. */
export interface SlowStream {
  readonly _tag: "SlowStream"
  readonly chunkDelayMs: number
}

/** @example fake.setDefault(Behaviour.reply()) */
export const reply = (): Reply => ({ _tag: "Reply" })

/** @example fake.enqueue(Behaviour.json(429, { error: { message: "rate limited" } }, { "retry-after-ms": "20" })) */
export const json = (status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): Json => ({
  _tag: "Json",
  status,
  body,
  headers
})

/** @example fake.enqueue(Behaviour.stall()) */
export const stall = (): Stall => ({ _tag: "Stall" })

/** @example fake.enqueue(Behaviour.delay(100, Behaviour.reply())) */
export const delay = (ms: number, inner: Behaviour): Delay => ({ _tag: "Delay", ms, inner })

/** @example fake.enqueue(Behaviour.resetConnection()) */
export const resetConnection = (): ResetConnection => ({ _tag: "ResetConnection" })

/** @example fake.enqueue(Behaviour.cutStream(2)) */
export const cutStream = (afterChunks: number): CutStream => ({ _tag: "CutStream", afterChunks })

/** @example fake.setDefault(Behaviour.slowStream(100)) */
export const slowStream = (chunkDelayMs: number): SlowStream => ({ _tag: "SlowStream", chunkDelayMs })
