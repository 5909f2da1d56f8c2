/**
 * Amazon Bedrock through the Converse and ConverseStream APIs:
 * `POST https://bedrock-runtime.{region}.amazonaws.com/model/{modelId}/converse` (JSON) and
 * `…/converse-stream` (binary event stream), the modelId URL-encoded, every request signed with
 * SigV4 for service `bedrock`. A Messages client's request to a Claude model goes instead to
 * InvokeModel in Anthropic's own shape (InvokeClaude). Credentials are the target's `cloud1_*`
 * fields; `custom_host` replaces the base URL (tests, VPC endpoints).
 */
import {
  type Dispatch,
  Endpoint,
  GatewayError,
  GatewayResponse,
  type ProviderRegistry,
  type ProviderTarget
} from "@switchyard/core"
import { Clock, Effect, Option, Random, Schema } from "effect"
import { Message, toChatCompletion } from "../anthropic/AnthropicResponse.ts"
import { eventsToChunks } from "../anthropic/AnthropicStream.ts"
import * as MessageTokenCount from "../anthropic/MessageTokenCount.ts"
import { ensureOk, parseLenient } from "../UpstreamCall.ts"
import type { UpstreamClient, UpstreamResponse } from "../UpstreamClient.ts"
import { fromHttpError } from "./BedrockError.ts"
import * as BedrockSigner from "./BedrockSigner.ts"
import { fromChatBody } from "./ConverseRequest.ts"
import { ConverseResponse, toCompletion } from "./ConverseResponse.ts"
import { toChunks } from "./ConverseStream.ts"
import { ANTHROPIC_VERSION, invokeBodyOf, isClaudeModel, readInvokeEvents } from "./InvokeClaude.ts"

/** The signer setup, public so its known-answer vectors can be checked. */
export * as BedrockSigner from "./BedrockSigner.ts"

const PROVIDER = "bedrock"
const EVENT_STREAM = "application/vnd.amazon.eventstream"

export const make = (client: UpstreamClient["Service"]): ProviderRegistry.ProviderAdapter => ({
  names: [PROVIDER],
  make: (target) => Effect.map(settingsOf(target), (settings) => dispatch(client, target, settings)),
  countMessageTokens: (target) => Effect.map(settingsOf(target), (settings) => counter(client, settings))
})

const invalid = (message: string, param: string | null) => new GatewayError.InvalidRequest({ message, param })

interface Settings {
  readonly baseUrl: string
  readonly sign: BedrockSigner.Signer
}

const settingsOf = (target: ProviderTarget.ProviderTarget): Effect.Effect<Settings, GatewayError.InvalidRequest> => {
  const { cloud1_access_key_id: accessKeyId, cloud1_region: region, cloud1_secret_access_key: secretAccessKey } = target
  if (accessKeyId === undefined || secretAccessKey === undefined) {
    return Effect.fail(invalid(
      "cloud1_access_key_id: provider \"bedrock\" needs cloud1_access_key_id and cloud1_secret_access_key",
      "cloud1_access_key_id"
    ))
  }
  if (region === undefined || !/^[a-z0-9-]+$/.test(region)) {
    return Effect.fail(
      invalid("cloud1_region: provider \"bedrock\" needs an AWS region (us-east-1, …)", "cloud1_region")
    )
  }
  let baseUrl = `https://bedrock-runtime.${region}.amazonaws.com`
  if (target.custom_host !== undefined) {
    const url = URL.parse(target.custom_host)
    if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
      return Effect.fail(
        invalid(`custom_host: must be an http or https URL (got "${target.custom_host}")`, "custom_host")
      )
    }
    baseUrl = target.custom_host.replace(/\/+$/, "")
  }
  const credentials = { accessKeyId, secretAccessKey, sessionToken: target.cloud1_session_token }
  return Effect.succeed({ baseUrl, sign: BedrockSigner.make({ credentials, region }) })
}

const dispatch = (
  client: UpstreamClient["Service"],
  target: ProviderTarget.ProviderTarget,
  settings: Settings
): Dispatch.Dispatch =>
(request) =>
  Effect.gen(function*() {
    if (request.endpoint !== "chat.completions") {
      return yield* Effect.fail(
        invalid(`provider "bedrock" does not serve /v1${Endpoint.paths[request.endpoint]}`, "provider")
      )
    }
    const modelId = typeof request.body.model === "string" ? request.body.model : ""
    const invoke = yield* invokeBodyOf(request, modelId)
    if (invoke !== undefined) {
      const action = request.stream ? "invoke-with-response-stream" : "invoke"
      const response = yield* post(client, settings, { modelId, action, body: invoke.body, stream: request.stream })
      const identity = { created: yield* createdAt, extras: target.strict_vendor_compliance === false }
      if (!request.stream) return yield* readMessage(response, identity)
      yield* ensureEventStream(response)
      const options = { ...identity, provider: PROVIDER, includeUsage: invoke.includeUsage }
      return GatewayResponse.stream(eventsToChunks(readInvokeEvents(response), options))
    }
    const call = yield* fromChatBody(request.body)
    const action = request.stream ? "converse-stream" : "converse"
    const response = yield* post(client, settings, {
      modelId: call.model,
      action,
      body: call.body,
      stream: request.stream
    })
    const now = yield* Clock.currentTimeMillis
    const requestId = response.headers["x-amzn-requestid"] ?? String(yield* Random.nextInt)
    const identity = {
      id: `chatcmpl-${requestId}`,
      created: Math.floor(now / 1000),
      model: call.model,
      withReasoning: target.strict_vendor_compliance === false
    }
    if (!request.stream) return yield* readCompletion(response, identity)
    yield* ensureEventStream(response)
    return GatewayResponse.stream(toChunks(response, { ...identity, includeUsage: call.includeUsage }))
  })

/**
 * Bedrock's CountTokens (`POST /model/{modelId}/count-tokens`, bedrock-runtime API reference):
 * for Claude, the Messages body as the InvokeModel body it would be, base64 in
 * `input.invokeModel.body`. It counts for a foundation model's id, so a cross-region inference
 * profile's prefix (`us.`, `eu.`, `global.`…) is dropped; other models have no count here.
 */
const counter =
  (client: UpstreamClient["Service"], settings: Settings): ProviderRegistry.MessageTokenCounter => (request) => {
    const model = typeof request.body.model === "string" ? request.body.model : ""
    if (!isClaudeModel(model)) return Effect.succeed(Option.none())
    const rest = Object.fromEntries(Object.entries(request.body).filter(([key]) => key !== "model"))
    const betas = (request.headers[MessageTokenCount.BETA_HEADER] ?? "").split(",").map((name) => name.trim())
      .filter((name) => name !== "")
    const invoke = {
      // InvokeModel's Claude body requires max_tokens, which a count request has no use for
      max_tokens: 1,
      ...rest,
      anthropic_version: ANTHROPIC_VERSION,
      ...(betas.length > 0 ? { anthropic_beta: betas } : {})
    }
    const body = { input: { invokeModel: { body: Buffer.from(JSON.stringify(invoke)).toString("base64") } } }
    const modelId = model.replace(/^[a-z-]+\.(?=anthropic\.)/, "")
    return post(client, settings, { modelId, action: "count-tokens", body, stream: false }).pipe(
      Effect.flatMap(MessageTokenCount.readBedrockCount(PROVIDER)),
      Effect.map(Option.some)
    )
  }

const createdAt = Effect.map(Clock.currentTimeMillis, (now) => Math.floor(now / 1000))

interface Call {
  readonly modelId: string
  readonly action: string
  readonly body: unknown
  readonly stream: boolean
}

/** One signed POST to `/model/{modelId}/{action}`, failing with Bedrock's error on a non-2xx. */
const post = (client: UpstreamClient["Service"], settings: Settings, call: Call) =>
  Effect.gen(function*() {
    const url = new URL(`${settings.baseUrl}/model/${encodeURIComponent(call.modelId)}/${call.action}`)
    const body = JSON.stringify(call.body)
    const now = yield* Clock.currentTimeMillis
    const headers = yield* Effect.tryPromise({
      try: () =>
        settings.sign({
          method: "POST",
          url,
          headers: { "content-type": "application/json", accept: call.stream ? EVENT_STREAM : "application/json" },
          body,
          date: new Date(now)
        }),
      catch: (error) => new GatewayError.InternalError({ message: `bedrock: signing failed: ${String(error)}` })
    })
    return yield* client.post({ provider: PROVIDER, url: url.href, headers, body }).pipe(
      Effect.flatMap(ensureOk(PROVIDER)),
      Effect.mapError((error) => error instanceof GatewayError.UpstreamStatus ? fromHttpError(error) : error)
    )
  })

const ensureEventStream = (response: UpstreamResponse) =>
  response.headers["content-type"]?.startsWith(EVENT_STREAM) === true
    ? Effect.void
    : Effect.andThen(
      response.discard,
      Effect.fail(unreachable(
        `answered a streamed request with ${response.headers["content-type"] ?? "no content type"}`
      ))
    )

const unreachable = (message: string) => new GatewayError.UpstreamUnreachable({ provider: PROVIDER, message })

const decodeResponse = Schema.decodeUnknownEffect(ConverseResponse)

const readCompletion = (response: UpstreamResponse, identity: Parameters<typeof toCompletion>[1]) =>
  response.bytes.pipe(
    Effect.flatMap((bytes) => decodeResponse(parseLenient(bytes))),
    Effect.mapError((error) =>
      error._tag === "SchemaError"
        ? unreachable(`answered a body that is not a Converse response: ${error.message}`)
        : error
    ),
    Effect.map((converse) => GatewayResponse.json(toCompletion(converse, identity)))
  )

const decodeMessage = Schema.decodeUnknownEffect(Message)

const readMessage = (response: UpstreamResponse, identity: Parameters<typeof toChatCompletion>[1]) =>
  response.bytes.pipe(
    Effect.flatMap((bytes) => decodeMessage(parseLenient(bytes))),
    Effect.mapError((error) =>
      error._tag === "SchemaError" ? unreachable("answered a body that is not an Anthropic message") : error
    ),
    Effect.map((message) => GatewayResponse.json(toChatCompletion(message, identity)))
  )
