/** The fake Azure as a scoped resource, and the targets the Azure tests point at it. */
import type { ProviderTarget } from "@switchyard/core"
import { FakeAzure } from "@switchyard/fake-providers"
import { Effect } from "effect"

/** A fake Azure for the length of the test's scope. */
export const fakeAzure = (options?: FakeAzure.StartOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => FakeAzure.start(options)),
    (fake) => Effect.promise(() => fake.close())
  )

export const azureOpenAITarget = (fake: FakeAzure.FakeAzure): ProviderTarget.ProviderTarget => ({
  provider: "azure-openai",
  api_key: "azure-key",
  custom_host: fake.baseUrl,
  resource_name: "contoso",
  deployment_id: "gpt-4o-prod",
  api_version: "2024-10-21"
})

export const azureAITarget = (fake: FakeAzure.FakeAzure): ProviderTarget.ProviderTarget => ({
  provider: "azure-ai",
  api_key: "azure-key",
  custom_host: fake.baseUrl,
  cloud3_deployment_type: "serverless",
  cloud3_endpoint_name: "llama-east",
  cloud3_region: "eastus2",
  cloud3_api_version: "2024-05-01-preview"
})

/** A weather tool, as an OpenAI-format request declares it. */
export const weatherTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
  }
}

/** A user message with a text part and an image part. */
export const imageMessage = {
  role: "user",
  content: [
    { type: "text", text: "what is in this picture" },
    { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "low" } }
  ]
}
