/**
 * The access token of one service account, fetched by the JWT grant and kept until shortly before
 * it expires. One refresh at a time: callers that find the token stale while another fiber is
 * fetching wait for that fetch instead of starting their own.
 */
import { GatewayError } from "@switchyard/core"
import { Clock, Effect, Option, Ref, Schema, Semaphore } from "effect"
import { parseLenient } from "../UpstreamCall.ts"
import { forCallerHost, type UpstreamClient } from "../UpstreamClient.ts"
import { assertion, DEFAULT_TOKEN_URI, type ServiceAccount } from "./ServiceAccount.ts"

/** A token is renewed this long before Google says it expires, so none expires in flight. */
export const REFRESH_MARGIN_MS = 60_000

const TokenAnswer = Schema.Struct({ access_token: Schema.String, expires_in: Schema.Number })
const decodeAnswer = Schema.decodeUnknownOption(TokenAnswer)
const GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"

/** Where a caller's own `token_uri` sits in a config, for the 400 that refuses it. */
const TOKEN_URI_FIELD = "cloud2_service_account_json.token_uri"

type TokenError = GatewayError.UpstreamStatus | GatewayError.UpstreamUnreachable | GatewayError.InvalidRequest

interface Cached {
  readonly token: string
  readonly refreshAt: number
}

/** An effect answering a valid access token, cached per service account. */
export const make = (
  client: UpstreamClient["Service"],
  account: ServiceAccount,
  provider: string
): Effect.Effect<Effect.Effect<string, TokenError>> =>
  Effect.gen(function*() {
    // Google's own token endpoint is a built-in URL; any other token_uri is the caller's choice
    const tokenClient = account.tokenUri === DEFAULT_TOKEN_URI ? client : forCallerHost(client, TOKEN_URI_FIELD)
    const cache = yield* Ref.make(Option.none<Cached>())
    const lock = yield* Semaphore.make(1)
    const fresh = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      return Option.filter(yield* Ref.get(cache), (cached) => cached.refreshAt > now)
    })
    const refresh = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const token = yield* fetchToken(tokenClient, account, provider, Math.floor(now / 1000))
      const refreshAt = now + token.expires_in * 1000 - REFRESH_MARGIN_MS
      yield* Ref.set(cache, Option.some({ token: token.access_token, refreshAt }))
      return token.access_token
    })
    const underLock = Effect.flatMap(
      fresh,
      Option.match({ onNone: () => refresh, onSome: (c) => Effect.succeed(c.token) })
    )
    return Effect.flatMap(
      fresh,
      Option.match({ onNone: () => Semaphore.withPermit(lock, underLock), onSome: (c) => Effect.succeed(c.token) })
    )
  })

const fetchToken = (client: UpstreamClient["Service"], account: ServiceAccount, provider: string, now: number) =>
  Effect.gen(function*() {
    const jwt = yield* assertion(account, now)
    const response = yield* client.post({
      provider,
      url: account.tokenUri,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: GRANT_TYPE, assertion: jwt }).toString()
    })
    const body = parseLenient(yield* response.bytes)
    const answer = decodeAnswer(body)
    if (response.status >= 200 && response.status < 300 && Option.isSome(answer)) return answer.value
    return yield* new GatewayError.UpstreamStatus({
      provider,
      status: response.status >= 200 && response.status < 300 ? 502 : response.status,
      body: { error: { message: tokenErrorMessage(body), type: "authentication_error" } },
      headers: response.headers
    })
  })

/** OAuth errors are `{error, error_description}`; the envelope keeps both in its message. */
const tokenErrorMessage = (body: unknown): string => {
  const described = Schema.decodeUnknownOption(
    Schema.Struct({ error: Schema.String, error_description: Schema.optionalKey(Schema.String) })
  )(body)
  const detail = Option.match(described, {
    onNone: () => (typeof body === "string" && body !== "" ? body : "no usable access token in the answer"),
    onSome: (error) => `${error.error}${error.error_description === undefined ? "" : `: ${error.error_description}`}`
  })
  return `the service account token request failed: ${detail}`
}
