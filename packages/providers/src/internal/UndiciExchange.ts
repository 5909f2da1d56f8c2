/**
 * One request on undici's lowest-level API (`dispatch` with a handler): the answer's status and
 * headers resume the caller, and its body is kept as plain chunks until it is read whole or
 * pulled as a stream. This skips the Readable stream undici's `request` builds for every answer,
 * which on the gateway's hot path cost more than the parsing of the answer itself.
 */
import { GatewayError, TrustedHosts } from "@switchyard/core"
import { Cause, Effect, Stream } from "effect"
import type { Dispatcher } from "undici"

/** Past this many unread chunks the upstream socket is paused until the reader catches up. */
const HIGH_WATER_CHUNKS = 32

export interface ExchangeHead {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
}

/** How the answer begins: its head, or why there is none. */
export type HeadFailure = GatewayError.UpstreamUnreachable | GatewayError.InvalidRequest

export class UndiciExchange implements Dispatcher.DispatchHandler {
  readonly #provider: string
  readonly #onHead: (head: Effect.Effect<ExchangeHead, HeadFailure>) => void
  readonly #callerField: string | undefined
  #controller: Dispatcher.DispatchController | undefined
  #chunks: Array<Buffer> = []
  #size = 0
  #ended = false
  #failure: GatewayError.UpstreamUnreachable | undefined
  #headSent = false
  /** The reader waiting for more of the body, if any. */
  #wake: (() => void) | undefined

  /** `callerField`: the field a caller chose the host in; a connection refused there is a 400 naming it. */
  constructor(
    provider: string,
    onHead: (head: Effect.Effect<ExchangeHead, HeadFailure>) => void,
    callerField?: string
  ) {
    this.#provider = provider
    this.#onHead = onHead
    this.#callerField = callerField
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Dispatcher.ResponseData["headers"]
  ): void {
    this.#headSent = true
    this.#onHead(Effect.succeed({ status: statusCode, headers: flatten(headers) }))
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk)
    this.#size += chunk.length
    if (this.#chunks.length >= HIGH_WATER_CHUNKS) controller.pause()
    this.#notify()
  }

  onResponseEnd(): void {
    this.#ended = true
    this.#notify()
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const failure = new GatewayError.UpstreamUnreachable({
      provider: this.#provider,
      message: this.#headSent ? "the answer was cut before it was complete" : describe(error)
    })
    if (!this.#headSent) {
      this.#headSent = true
      this.#onHead(Effect.fail(this.#refusal(error) ?? failure))
      return
    }
    this.#failure = failure
    this.#notify()
  }

  /** The caller's bad input, not the provider's failure, when the trusted-hosts guard refused the connection. */
  #refusal(error: Error): GatewayError.InvalidRequest | undefined {
    if (this.#callerField === undefined) return undefined
    const refused = TrustedHosts.untrustedIn(error)
    return refused === undefined ? undefined : TrustedHosts.invalidRequest(this.#callerField, refused)
  }

  /** Stops the exchange: the socket is closed rather than reused. */
  abort(): void {
    if (this.#ended || this.#failure !== undefined) return
    this.#controller?.abort(new Error("aborted by the gateway"))
  }

  /** The whole body, once it has ended. */
  get bytes(): Effect.Effect<Uint8Array, GatewayError.UpstreamUnreachable> {
    return Effect.callback((resume) => {
      const settle = () => {
        if (this.#failure !== undefined) return resume(Effect.fail(this.#failure))
        if (!this.#ended) {
          this.#wake = settle
          this.#controller?.resume()
          return
        }
        const whole = this.#chunks.length === 1 && this.#chunks[0] !== undefined
          ? this.#chunks[0]
          : Buffer.concat(this.#chunks, this.#size)
        this.#chunks = []
        resume(Effect.succeed(whole))
      }
      settle()
      return Effect.sync(() => this.abort())
    })
  }

  /** The body as it arrives, chunk by chunk; interrupting the reader aborts the exchange. */
  get stream(): Stream.Stream<Uint8Array, GatewayError.UpstreamUnreachable> {
    return Stream.fromPull(Effect.succeed(this.#pull())).pipe(
      Stream.onExit((exit) => (exit._tag === "Success" ? Effect.void : Effect.sync(() => this.abort())))
    )
  }

  #pull() {
    return Effect.callback<readonly [Buffer, ...Array<Buffer>], GatewayError.UpstreamUnreachable | Cause.Done>(
      (resume) => {
        const settle = () => {
          const [first, ...rest] = this.#chunks
          if (first !== undefined) {
            this.#chunks = []
            this.#controller?.resume()
            return resume(Effect.succeed([first, ...rest]))
          }
          if (this.#failure !== undefined) return resume(Effect.fail(this.#failure))
          if (this.#ended) return resume(Cause.done())
          this.#wake = settle
          this.#controller?.resume()
        }
        settle()
      }
    )
  }

  #notify(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }
}

/** undici puts the useful part (ECONNREFUSED, other side closed) in the cause or the message. */
const describe = (error: Error): string => (error.cause instanceof Error ? error.cause.message : error.message)

const flatten = (headers: Dispatcher.ResponseData["headers"]): Record<string, string> => {
  const flat: Record<string, string> = {}
  for (const name in headers) {
    const value = headers[name]
    if (value !== undefined) flat[name] = typeof value === "string" ? value : value.join(", ")
  }
  return flat
}
