/**
 * What the fake Azure checks before answering, as Azure documents it: the route, the credential,
 * the `api-version`, the deployment, and a JSON body. A failed check answers Azure's error shape.
 */
import { arrayField, isRecord } from "../JsonFields.ts"

export interface AzureSettings {
  readonly apiKey: string
  readonly bearerToken: string
  /** Azure OpenAI deployment name → the model it runs (what answers report as `model`). */
  readonly deployments: Readonly<Record<string, string>>
  /** Names accepted in `azureml-model-deployment` by the managed `/score` route. */
  readonly managedDeployments: ReadonlyArray<string>
  /** The model a serverless or managed endpoint reports. */
  readonly endpointModel: string
}

/** Which API a checked request called, and the model that answers it. */
export type AzureRoute =
  | {
    readonly _tag: "AzureOpenAI"
    readonly operation: "chat" | "completions" | "embeddings" | "responses"
    readonly model: string
  }
  | { readonly _tag: "Inference"; readonly model: string }

export type CheckResult =
  | { readonly _tag: "Accepted"; readonly route: AzureRoute }
  | { readonly _tag: "Refused"; readonly status: number; readonly body: unknown }

const refused = (status: number, body: unknown): CheckResult => ({ _tag: "Refused", status, body })

const notFound = refused(404, { error: { code: "404", message: "Resource not found" } })

/** Azure OpenAI's answer to a missing or wrong key (REST reference, 401). */
const accessDenied = refused(401, {
  error: {
    code: "401",
    message: "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid " +
      "key for an active subscription and use a correct regional API endpoint for your resource."
  }
})

const inferenceUnauthorized = refused(401, {
  error: { code: "Unauthorized", message: "Access denied due to invalid or missing credentials.", status: 401 }
})

const deploymentNotFound = refused(404, {
  error: {
    code: "DeploymentNotFound",
    message: "The API deployment for this resource does not exist. If you created the deployment within the last " +
      "5 minutes, please wait a moment and try again."
  }
})

const noManagedDeployment = refused(404, {
  message: "No valid deployments to route to. Please check that the endpoint has at least one deployment with " +
    "positive weight values or use a deployment specific header to route."
})

const missingMessages = refused(400, {
  error: { message: "'messages' is a required property", type: "invalid_request_error", param: null, code: null }
})

const invalidJson = refused(400, {
  error: { message: "We could not parse the JSON body of your request.", type: "invalid_request_error", param: null }
})

const apiVersionPattern = /^\d{4}-\d{2}-\d{2}(-preview)?$/

const deploymentPath = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|completions|embeddings)$/

export const checkRequest = (
  settings: AzureSettings,
  request: {
    readonly method: string
    readonly target: string
    readonly headers: Readonly<Record<string, string>>
    readonly body: unknown
  }
): CheckResult => {
  const url = new URL(request.target, "http://fake")
  if (request.method !== "POST") return notFound
  const apiVersion = url.searchParams.get("api-version")
  const bearer = request.headers.authorization
  const match = deploymentPath.exec(url.pathname)
  if (match !== null) {
    const keyOk = request.headers["api-key"] === settings.apiKey
    if (!keyOk && bearer !== `Bearer ${settings.bearerToken}`) return accessDenied
    if (apiVersion === null || !apiVersionPattern.test(apiVersion)) return notFound
    const model = settings.deployments[decodeURIComponent(match[1] ?? "")]
    if (model === undefined) return deploymentNotFound
    const operation = match[2] === "chat/completions"
      ? "chat"
      : match[2] === "completions"
      ? "completions"
      : "embeddings"
    return checkBody(request.body, operation === "chat", { _tag: "AzureOpenAI", operation, model })
  }
  if (url.pathname === "/openai/responses") return checkResponses(settings, request, apiVersion)
  if (url.pathname !== "/chat/completions" && url.pathname !== "/score") return notFound
  if (bearer !== `Bearer ${settings.apiKey}` && bearer !== `Bearer ${settings.bearerToken}`) {
    return inferenceUnauthorized
  }
  if (apiVersion !== null && !apiVersionPattern.test(apiVersion)) return notFound
  if (url.pathname === "/score") {
    const deployment = request.headers["azureml-model-deployment"]
    if (deployment === undefined || !settings.managedDeployments.includes(deployment)) return noManagedDeployment
  }
  return checkBody(request.body, true, { _tag: "Inference", model: settings.endpointModel })
}

/** Azure OpenAI's Responses API: one path per resource, the deployment named as the body's `model`. */
const checkResponses = (
  settings: AzureSettings,
  request: { readonly headers: Readonly<Record<string, string>>; readonly body: unknown },
  apiVersion: string | null
): CheckResult => {
  const keyOk = request.headers["api-key"] === settings.apiKey
  if (!keyOk && request.headers.authorization !== `Bearer ${settings.bearerToken}`) return accessDenied
  if (apiVersion === null || !apiVersionPattern.test(apiVersion)) return notFound
  if (!isRecord(request.body)) return invalidJson
  const deployment = request.body.model
  const model = typeof deployment === "string" ? settings.deployments[deployment] : undefined
  return model === undefined
    ? deploymentNotFound
    : { _tag: "Accepted", route: { _tag: "AzureOpenAI", operation: "responses", model } }
}

const checkBody = (body: unknown, isChat: boolean, route: AzureRoute): CheckResult => {
  if (!isRecord(body)) return invalidJson
  if (isChat && arrayField(body, "messages").length === 0) return missingMessages
  return { _tag: "Accepted", route }
}
