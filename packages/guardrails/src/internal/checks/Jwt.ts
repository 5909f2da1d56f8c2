/**
 * `default.jwt {jwksUri, headerKey, algorithms, clockTolerance, maxTokenAge, cacheMaxAge, not}`:
 * the token in request header `headerKey` (a `Bearer ` prefix is dropped) verifies against the
 * keys at `jwksUri` (jose; the key set is fetched once and cached per URI). The key set is fetched
 * only from a host `GATEWAY_TRUSTED_HOSTS` allows; another one fails the check with the reason.
 */
import { TrustedHosts } from "@switchyard/core"
import { Effect, Schema } from "effect"
import { createRemoteJWKSet, customFetch, type FetchImplementation, jwtVerify } from "jose"
import * as Check from "../../Check.ts"
import { reasonOf, send } from "../Post.ts"
import { Not } from "./Parameters.ts"

type KeySet = ReturnType<typeof createRemoteJWKSet>

const keySets = new WeakMap<TrustedHosts.TrustedHosts, Map<string, KeySet>>()

/** jose's fetch, through the guarded client of {@link send}. */
const guardedFetch = (hosts: TrustedHosts.TrustedHosts): FetchImplementation => (url, options) =>
  send(hosts, url, { method: "GET", headers: Object.fromEntries(options.headers), signal: options.signal }).then(
    (answer) => new Response(answer.text, { status: answer.status, headers: answer.headers })
  )

const keySetOf = (hosts: TrustedHosts.TrustedHosts, uri: string, cacheMaxAge: number | undefined): KeySet => {
  const known = keySets.get(hosts) ?? new Map<string, KeySet>()
  keySets.set(hosts, known)
  const key = `${uri} ${cacheMaxAge ?? ""}`
  const cached = known.get(key)
  if (cached !== undefined) return cached
  const created = createRemoteJWKSet(new URL(uri), {
    [customFetch]: guardedFetch(hosts),
    ...(cacheMaxAge === undefined ? {} : { cacheMaxAge })
  })
  known.set(key, created)
  return created
}

const isUrl = Schema.makeFilter((value: string) => URL.canParse(value), { message: "must be a URL" })

export const jwt = Check.make({
  id: "default.jwt",
  parameters: Schema.Struct({
    jwksUri: Schema.String.check(isUrl),
    headerKey: Schema.String,
    algorithms: Schema.optionalKey(Schema.Array(Schema.String)),
    clockTolerance: Schema.optionalKey(Schema.Number),
    maxTokenAge: Schema.optionalKey(Schema.Number),
    cacheMaxAge: Schema.optionalKey(Schema.Number),
    not: Not
  }),
  run: (context, parameters) => {
    const header = context.headers[parameters.headerKey.toLowerCase()]
    const token = header?.replace(/^Bearer\s+/i, "").trim()
    if (token === undefined || token.length === 0) {
      return Effect.succeed(
        Check.verdict(false, parameters.not, { holds: "", fails: `no token in ${parameters.headerKey}` })
      )
    }
    const options = {
      ...(parameters.algorithms === undefined ? {} : { algorithms: [...parameters.algorithms] }),
      ...(parameters.clockTolerance === undefined ? {} : { clockTolerance: parameters.clockTolerance }),
      ...(parameters.maxTokenAge === undefined ? {} : { maxTokenAge: parameters.maxTokenAge })
    }
    return TrustedHosts.TrustedHosts.use((hosts) =>
      Effect.tryPromise({
        try: () => jwtVerify(token, keySetOf(hosts, parameters.jwksUri, parameters.cacheMaxAge), options),
        catch: (error) => error
      })
    ).pipe(
      Effect.matchEffect({
        onSuccess: ({ payload }) =>
          Effect.succeed(
            Check.verdict(true, parameters.not, { holds: "the token is valid", fails: "" }, { sub: payload.sub })
          ),
        // a key set the gateway may not fetch says nothing of the token: the check cannot decide
        onFailure: (error) =>
          TrustedHosts.untrustedIn(error) !== undefined
            ? Effect.fail(new Check.CheckError({ message: reasonOf(error, "jwksUri") }))
            : Effect.succeed(Check.verdict(false, parameters.not, {
              holds: "",
              fails: `the token is not valid: ${error instanceof Error ? error.message : String(error)}`
            }))
      })
    )
  }
})
