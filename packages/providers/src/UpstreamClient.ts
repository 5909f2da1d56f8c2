/**
 * The pooled keep-alive client every adapter calls providers with: undici's Agent, driven through
 * its lowest-level `dispatch` API rather than through effect/http's HttpClient. On the gateway's
 * hot path the wrappers cost more than the call (see the README's benchmark), and adapters need
 * only a POST with a body, then the status, the headers and the body as bytes or as a stream.
 *
 * A URL whose host a caller chose (`custom_host`, a service account's `token_uri`) goes through a
 * second Agent whose connections resolve with the `TrustedHosts` lookup, so the address actually
 * connected to is the one judged; the providers' built-in URLs keep the first Agent, untouched.
 *
 * With tracing on (`Tracing.Enabled` when the layer is built) each call carries the W3C
 * `traceparent` of the span it runs under (the pipeline's upstream attempt), so a provider or a
 * proxy that traces continues the trace; with tracing off nothing is added or read.
 */
import { GatewayError, TrustedHosts } from "@switchyard/core"
import { Tracing } from "@switchyard/observability"
import { Context, Effect, Layer, type Stream } from "effect"
import { Agent, buildConnector } from "undici"
import { UndiciExchange } from "./internal/UndiciExchange.ts"

export interface UpstreamRequest {
  /** Short provider name, for errors. */
  readonly provider: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The serialised body. */
  readonly body: string | Uint8Array
  /**
   * The field the URL's host came from when a caller supplied it (`custom_host`): the call then
   * connects only where `TrustedHosts` allows, and a refusal is a 400 naming this field. Unset for
   * the providers' built-in URLs.
   */
  readonly callerField?: string | undefined
}

export interface UpstreamResponse {
  readonly status: number
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  /** The whole body; read it, or `stream` it, once. */
  readonly bytes: Effect.Effect<Uint8Array, GatewayError.UpstreamUnreachable>
  readonly stream: Stream.Stream<Uint8Array, GatewayError.UpstreamUnreachable>
  /** Drops the body unread, freeing its connection: for answers the caller will not read. */
  readonly discard: Effect.Effect<void>
}

export class UpstreamClient extends Context.Service<UpstreamClient, {
  /**
   * Sends a POST; a transport failure is `UpstreamUnreachable`, a caller's host that may not be
   * reached is `InvalidRequest`. Interrupting it aborts the call.
   */
  readonly post: (
    request: UpstreamRequest
  ) => Effect.Effect<UpstreamResponse, GatewayError.UpstreamUnreachable | GatewayError.InvalidRequest>
}>()("@switchyard/providers/UpstreamClient") {
  /**
   * Over two undici Agents (a keep-alive pool per origin each, closed with the layer): one for
   * the built-in URLs, one guarded by the `TrustedHosts` in context (the default list without one).
   */
  static readonly layer = (options?: Agent.Options): Layer.Layer<UpstreamClient> =>
    Layer.effect(
      UpstreamClient,
      Effect.gen(function*() {
        const hosts = yield* TrustedHosts.TrustedHosts
        const settings = { keepAliveTimeout: 30_000, connections: 512, ...options }
        const agent = yield* acquireAgent(settings)
        const connect = typeof settings.connect === "object" ? settings.connect : {}
        const guarded = yield* acquireAgent({ ...settings, connect: guardedConnector(hosts, connect) })
        const send = (request: UpstreamRequest) =>
          request.callerField === undefined ? post(agent, request) : post(guarded, request, request.callerField)
        return UpstreamClient.of({ post: (yield* Tracing.Enabled) ? withTraceparent(send) : send })
      })
    )
}

/** Each call with the `traceparent` of the span it runs under, replacing one a caller forwarded. */
const withTraceparent = (send: UpstreamClient["Service"]["post"]): UpstreamClient["Service"]["post"] => (request) =>
  Effect.withFiber((fiber) => {
    const span = Tracing.callerSpanOf(fiber)
    if (span === undefined) return send(request)
    return send({ ...request, headers: { ...request.headers, traceparent: Tracing.traceparentOf(span) } })
  })

/** The same client with every request marked as going to a host the caller chose in `field`. */
export const forCallerHost = (client: UpstreamClient["Service"], field: string): UpstreamClient["Service"] =>
  UpstreamClient.of({
    // a field set closer to the call (a token_uri inside a custom_host target) names it better
    post: (request) => client.post(request.callerField === undefined ? { ...request, callerField: field } : request)
  })

const acquireAgent = (options: Agent.Options) =>
  Effect.acquireRelease(Effect.sync(() => new Agent(options)), (agent) => Effect.promise(() => agent.close()))

/** undici's connector resolving through the trusted-hosts lookup, IP addresses judged as written. */
const guardedConnector = (
  hosts: TrustedHosts.TrustedHosts,
  options: Partial<buildConnector.BuildOptions>
): buildConnector.connector =>
  TrustedHosts.guardConnector(hosts, buildConnector({ ...options, lookup: TrustedHosts.lookup(hosts) }))

/** The answer's body is read through the exchange only when a caller asks for it. */
class ExchangeResponse implements UpstreamResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly #exchange: UndiciExchange

  constructor(status: number, headers: Readonly<Record<string, string>>, exchange: UndiciExchange) {
    this.status = status
    this.headers = headers
    this.#exchange = exchange
  }

  get bytes() {
    return this.#exchange.bytes
  }

  get stream() {
    return this.#exchange.stream
  }

  get discard() {
    return Effect.sync(() => this.#exchange.abort())
  }
}

/**
 * A URL's origin and path, remembered: a gateway calls the same few endpoints over and over, and
 * parsing a URL is a measurable part of a call. Bounded, since callers may name their own hosts.
 */
const originAndPath = (url: string): { readonly origin: string; readonly path: string } => {
  const known = parsedUrls.get(url)
  if (known !== undefined) return known
  const parsed = new URL(url)
  if (parsedUrls.size >= MAX_PARSED_URLS) parsedUrls.clear()
  const split = { origin: parsed.origin, path: parsed.pathname + parsed.search }
  parsedUrls.set(url, split)
  return split
}

const MAX_PARSED_URLS = 1_024
const parsedUrls = new Map<string, { readonly origin: string; readonly path: string }>()

const post = (agent: Agent, request: UpstreamRequest, callerField?: string) =>
  Effect.callback<UpstreamResponse, GatewayError.UpstreamUnreachable | GatewayError.InvalidRequest>((resume) => {
    const url = originAndPath(request.url)
    const exchange = new UndiciExchange(
      request.provider,
      (head) => resume(Effect.map(head, ({ headers, status }) => new ExchangeResponse(status, headers, exchange))),
      callerField
    )
    agent.dispatch({
      origin: url.origin,
      path: url.path,
      method: "POST",
      headers: request.headers,
      body: request.body
    }, exchange)
    // interrupted before the answer began: abandon the call and free its socket
    return Effect.sync(() => exchange.abort())
  })
