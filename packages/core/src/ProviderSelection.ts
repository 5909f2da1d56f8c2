/**
 * Which provider a request goes to, read from its headers in the order extensions.md gives:
 * `x-gateway-config`, then `x-gateway-provider`, then the stored forms (virtual key, `@slug`
 * model) that the auth package adds. The answer is a config tree plus a key naming its content,
 * so the compiler builds each distinct selection once.
 */
import { GatewayConfig, InvalidInput, JsonLimits } from "@switchyard/protocol"
import { Context, Effect, Layer, Option, Result } from "effect"
import type { ConfigNode } from "./ConfigNode.ts"
import { type GatewayError, InvalidRequest } from "./GatewayError.ts"
import { Headers } from "./RequestContext.ts"

export interface SelectionInput {
  /** Incoming headers, lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  /** The caller's workspace: stored objects are looked up there only. */
  readonly workspaceId: string
  /** The body's `model`, when it has one. */
  readonly model: string | undefined
}

export interface Selection {
  /** Identifies the config's content: equal keys must mean equal configs. */
  readonly key: string
  readonly config: Effect.Effect<ConfigNode, InvalidRequest>
}

/** One way of naming a provider; `None` passes the request on to the next selector. */
export interface Selector {
  readonly name: string
  readonly select: (input: SelectionInput) => Effect.Effect<Option.Option<Selection>, GatewayError>
}

const decodeConfig = InvalidInput.decodeInputResult(GatewayConfig.GatewayConfig, { root: "config" })

/**
 * `x-gateway-config` holding a config object as JSON. A stored config's id (`pc-…`) is left to
 * the stored selector; any other value that is not a JSON object is refused, never ignored.
 */
export const configHeader: Selector = {
  name: Headers.config,
  select: ({ headers }) => {
    const raw = headers[Headers.config]
    if (raw === undefined || raw.trim().startsWith("pc-")) return Effect.succeed(Option.none())
    return Effect.succeed(Option.some({ key: `config:${raw}`, config: Effect.suspend(() => decodeConfigHeader(raw)) }))
  }
}

const invalidConfigHeader = (rule: string) =>
  Effect.fail(new InvalidRequest({ message: `${Headers.config}: ${rule}`, param: Headers.config }))

const decodeConfigHeader = (raw: string): Effect.Effect<ConfigNode, InvalidRequest> => {
  if (JsonLimits.exceedsDepth(raw)) return invalidConfigHeader(JsonLimits.depthRule)
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return invalidConfigHeader("is not valid JSON")
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return invalidConfigHeader(
      `must be a JSON object or a stored config id (pc-…), not ${
        parsed === null ? "null" : Array.isArray(parsed) ? "an array" : `a ${typeof parsed}`
      }`
    )
  }
  const decoded = decodeConfig(parsed)
  return Result.isSuccess(decoded)
    ? Effect.succeed(decoded.success)
    : Effect.fail(new InvalidRequest({ message: decoded.failure.message, param: decoded.failure.param }))
}

/**
 * `x-gateway-provider` with a short provider name, `Authorization` and `x-gateway-custom-host`; or
 * an integration `@slug`, whose stored credentials the stored-credentials adapter supplies.
 */
export const providerHeader: Selector = {
  name: Headers.provider,
  select: ({ headers }) => {
    const provider = headers[Headers.provider]
    if (provider === undefined || provider === "") return Effect.succeed(Option.none())
    if (provider.startsWith("@")) {
      // the integration's own credentials are used: a caller's Authorization never mixes in
      return Effect.succeed(Option.some({ key: `provider:${provider}`, config: Effect.succeed({ provider }) }))
    }
    const apiKey = bearerToken(headers.authorization)
    const customHost = headers[Headers.customHost]
    const node: ConfigNode = {
      provider,
      ...(apiKey === undefined ? {} : { api_key: apiKey }),
      ...(customHost === undefined ? {} : { custom_host: customHost })
    }
    return Effect.succeed(Option.some({
      key: `provider:${provider}\n${apiKey ?? ""}\n${customHost ?? ""}`,
      config: Effect.succeed(node)
    }))
  }
}

const bearerToken = (authorization: string | undefined): string | undefined => {
  if (authorization === undefined) return undefined
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim())
  return match?.[1]
}

/**
 * The selectors in order of precedence. There is no default: leaving them out is a type error
 * where the gateway is built. `layerHeaders` has the header forms core knows; the provider-access
 * package provides the longer list with the stored forms.
 */
export class Selectors extends Context.Service<Selectors, { readonly list: ReadonlyArray<Selector> }>()(
  "@switchyard/core/Selectors"
) {
  static readonly layer = (list: ReadonlyArray<Selector>): Layer.Layer<Selectors> =>
    Layer.succeed(Selectors, Selectors.of({ list }))

  /** `x-gateway-config` (a JSON object) and `x-gateway-provider`. */
  static readonly layerHeaders: Layer.Layer<Selectors> = Selectors.layer([configHeader, providerHeader])
}

/**
 * The first selection any selector makes, with the request-level settings headers
 * (`x-gateway-forward-headers`, `x-gateway-request-timeout`, `x-gateway-strict-vendor-compliance`)
 * laid over its root. No selection is a 400 naming what was missing.
 */
export const select = (input: SelectionInput): Effect.Effect<Selection, GatewayError, Selectors> =>
  Selectors.use((selectors) => selectWith(selectors.list, input))

/** {@link select} over a given list of selectors. */
export const selectWith = (
  selectors: ReadonlyArray<Selector>,
  input: SelectionInput
): Effect.Effect<Selection, GatewayError> => {
  const from = (index: number): Effect.Effect<Selection, GatewayError> => {
    const selector = selectors[index]
    if (selector === undefined) return Effect.fail(noSelection)
    return Effect.flatMap(
      selector.select(input),
      (found) =>
        Option.isSome(found) ? Effect.succeed(withRequestSettings(found.value, input.headers)) : from(index + 1)
    )
  }
  return from(0)
}

const noSelection = new InvalidRequest({
  message: `no provider selected: send ${Headers.config}, ${Headers.provider} (with Authorization), ` +
    `${Headers.virtualKey}, or a model written as @slug/model`,
  param: Headers.provider
})

const withRequestSettings = (selection: Selection, headers: Readonly<Record<string, string>>): Selection => {
  const forward = headers[Headers.forwardHeaders]
  const timeout = headers[Headers.requestTimeout]
  const strict = headers[Headers.strictVendorCompliance]
  if (forward === undefined && timeout === undefined && strict === undefined) return selection
  return {
    // JSON keeps an empty header apart from an absent one
    key: `${selection.key}\nsettings:${JSON.stringify([forward ?? null, timeout ?? null, strict ?? null])}`,
    config: Effect.flatMap(
      requestSettings(forward, timeout, strict),
      (settings) => Effect.map(selection.config, (config) => ({ ...config, ...settings }))
    )
  }
}

const requestSettings = (
  forward: string | undefined,
  timeout: string | undefined,
  strict: string | undefined
): Effect.Effect<Partial<ConfigNode>, InvalidRequest> => {
  const settings: { forward_headers?: Array<string>; request_timeout?: number; strict_vendor_compliance?: boolean } = {}
  if (forward !== undefined) {
    settings.forward_headers = forward.split(",").map((name) => name.trim().toLowerCase()).filter((name) => name !== "")
  }
  if (timeout !== undefined) {
    const ms = Number(timeout)
    if (!Number.isInteger(ms) || ms < 1) {
      return Effect.fail(
        new InvalidRequest({
          message: `${Headers.requestTimeout}: must be a whole number of milliseconds >= 1 (got "${timeout}")`,
          param: Headers.requestTimeout
        })
      )
    }
    settings.request_timeout = ms
  }
  if (strict !== undefined) {
    if (strict !== "true" && strict !== "false") {
      return Effect.fail(
        new InvalidRequest({
          message: `${Headers.strictVendorCompliance}: must be "true" or "false" (got "${strict}")`,
          param: Headers.strictVendorCompliance
        })
      )
    }
    settings.strict_vendor_compliance = strict === "true"
  }
  return Effect.succeed(settings)
}

/** The three headers that select a provider; an object kept for later calls needs one of them. */
export const selectingHeaders: ReadonlyArray<string> = [Headers.config, Headers.provider, Headers.virtualKey]

/** The request headers that choose and shape the provider, as an object kept for later calls keeps them. */
const keptHeaders: ReadonlyArray<string> = [
  ...selectingHeaders,
  Headers.customHost,
  Headers.metadata,
  Headers.requestTimeout,
  Headers.strictVendorCompliance,
  "authorization"
]

/**
 * The selection headers of a request, for an object whose later calls go where it was created
 * (extensions.md, "Which endpoints need a provider": a thread's runs, a batch's lines); without
 * one of the three selecting headers, a 400 saying what keeps it.
 *
 * @example
 * ProviderSelection.keep({ "x-gateway-provider": "openai", authorization: "Bearer sk" }, { owner: "batch", calls: "lines" })
 */
export const keep = (
  headers: Readonly<Record<string, string>>,
  kept: { readonly owner: string; readonly calls: string }
): Effect.Effect<Readonly<Record<string, string>>, InvalidRequest> => {
  if (!selectingHeaders.some((name) => (headers[name] ?? "") !== "")) {
    return Effect.fail(
      new InvalidRequest({
        message: `no provider selected: a ${kept.owner} keeps the provider its ${kept.calls} use, so send ` +
          `${Headers.config}, ${Headers.provider} (with Authorization) or ${Headers.virtualKey} when creating it`,
        param: Headers.provider
      })
    )
  }
  const selection: Record<string, string> = {}
  for (const name of keptHeaders) {
    const value = headers[name]
    if (value !== undefined) selection[name] = value
  }
  return Effect.succeed(selection)
}
