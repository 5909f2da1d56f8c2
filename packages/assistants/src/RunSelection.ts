/**
 * The provider selection a thread is created with (extensions.md, "Which endpoints need a
 * provider"): the selection headers of the creating request, kept sealed (they may hold a
 * provider's key) and laid over every run of the thread, so its runs reach the same provider
 * through the same config.
 */
import { SecretBox, ServerSecret } from "@switchyard/auth"
import { GatewayError, ProviderSelection, RequestContext } from "@switchyard/core"
import { Effect, Option, Schema } from "effect"

const { Headers } = RequestContext

const Kept = Schema.Record(Schema.String, Schema.String)
const decodeKept = Schema.decodeUnknownEffect(Kept)

/** The selection headers of a request; none of the three selecting ones is a 400. */
export const capture = (
  headers: Readonly<Record<string, string>>
): Effect.Effect<Readonly<Record<string, string>>, GatewayError.InvalidRequest> =>
  Effect.flatMap(ProviderSelection.keep(headers, { owner: "thread", calls: "runs" }), (kept) =>
    // a config given as JSON is checked now, so a bad one is a 400 here rather than a failed run later
    ProviderSelection.configHeader.select({ headers, workspaceId: "", model: undefined }).pipe(
      Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: (selection) => selection.config })),
      Effect.mapError((error) =>
        error instanceof GatewayError.InvalidRequest
          ? error
          : new GatewayError.InvalidRequest({ message: error.message, param: Headers.config })
      ),
      Effect.as(kept)
    ))

/**
 * The selection headers of an assistant's own `provider`, `integration` or `config`, or none
 * when it names none of them (its runs then use the thread's selection).
 */
export const ofAssistant = (fields: {
  readonly provider?: string | null | undefined
  readonly integration?: string | null | undefined
  readonly config?: string | Readonly<Record<string, unknown>> | null | undefined
}): Readonly<Record<string, string>> | undefined => {
  const headers: Record<string, string> = {}
  if (typeof fields.config === "string") headers[Headers.config] = fields.config
  else if (fields.config !== undefined && fields.config !== null) {
    headers[Headers.config] = JSON.stringify(fields.config)
  }
  if (typeof fields.integration === "string") {
    headers[Headers.provider] = fields.integration.startsWith("@") ? fields.integration : `@${fields.integration}`
  } else if (typeof fields.provider === "string") headers[Headers.provider] = fields.provider
  return Object.keys(headers).length === 0 ? undefined : headers
}

/** The thread's headers an assistant's own selection replaces. */
const replaced: ReadonlySet<string> = new Set([...ProviderSelection.selectingHeaders, Headers.customHost])

/**
 * A run's selection: the assistant's own, when it has one, in place of the thread's selecting
 * headers; the thread's `Authorization` and settings stay (a provider name needs its key).
 */
export const forRun = (
  thread: Readonly<Record<string, string>>,
  assistant: Readonly<Record<string, string>> | undefined
): Readonly<Record<string, string>> => {
  if (assistant === undefined) return thread
  const kept: Record<string, string> = {}
  for (const name in thread) {
    const value = thread[name]
    if (value !== undefined && !replaced.has(name)) kept[name] = value
  }
  return { ...kept, ...assistant }
}

/** The selection sealed for the database. */
export const seal = (secret: ServerSecret.ServerSecret["Service"], headers: Readonly<Record<string, string>>): string =>
  SecretBox.seal(secret.credentialKey, headers)

/** A sealed selection opened; one that cannot be (another secret) is the gateway's own fault. */
export const open = (
  secret: ServerSecret.ServerSecret["Service"],
  sealed: string
): Effect.Effect<Readonly<Record<string, string>>, GatewayError.InternalError> =>
  SecretBox.open(secret.credentialKey, sealed).pipe(
    Effect.flatMap(decodeKept),
    Effect.mapError((error) =>
      new GatewayError.InternalError({ message: `assistants: the thread's provider selection: ${error.message}` })
    )
  )

/**
 * The selection of a request, checked and sealed, as `ThreadStore.createThread` keeps it.
 *
 * @example
 * import { RunSelection } from "@switchyard/assistants"
 * const selection = RunSelection.sealed({ "x-gateway-provider": "anthropic", authorization: "Bearer sk-ant-…" })
 */
export const sealed = (
  headers: Readonly<Record<string, string>>
): Effect.Effect<string, GatewayError.InvalidRequest, ServerSecret.ServerSecret> =>
  Effect.flatMap(capture(headers), (kept) => ServerSecret.ServerSecret.useSync((secret) => seal(secret, kept)))
