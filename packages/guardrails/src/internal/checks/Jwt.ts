/**
 * `default.jwt {jwksUri, headerKey, algorithms, clockTolerance, maxTokenAge, cacheMaxAge, not}`:
 * the token in request header `headerKey` (a `Bearer ` prefix is dropped) verifies against the
 * keys at `jwksUri` (jose; the key set is fetched once and cached per URI).
 */
import { Effect, Schema } from "effect"
import { createRemoteJWKSet, jwtVerify } from "jose"
import * as Check from "../../Check.ts"
import { Not } from "./Parameters.ts"

const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>()

const keySetOf = (uri: string, cacheMaxAge: number | undefined) => {
  const key = `${uri} ${cacheMaxAge ?? ""}`
  const known = keySets.get(key)
  if (known !== undefined) return known
  const created = createRemoteJWKSet(new URL(uri), cacheMaxAge === undefined ? {} : { cacheMaxAge })
  keySets.set(key, created)
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
    return Effect.tryPromise({
      try: () => jwtVerify(token, keySetOf(parameters.jwksUri, parameters.cacheMaxAge), options),
      catch: (error) => error
    }).pipe(
      Effect.match({
        onSuccess: ({ payload }) =>
          Check.verdict(true, parameters.not, { holds: "the token is valid", fails: "" }, { sub: payload.sub }),
        onFailure: (error) =>
          Check.verdict(false, parameters.not, {
            holds: "",
            fails: `the token is not valid: ${error instanceof Error ? error.message : String(error)}`
          })
      })
    )
  }
})
