import { Behaviour } from "@switchyard/fake-providers"
import OpenAI from "openai"
import { describe, expect, it } from "vitest"
import { call, createKey } from "./support/Admin.ts"
import { sseData, useGatewayAndFake } from "./support/Fixtures.ts"
import { ADMIN_KEY } from "./support/GatewayProcess.ts"
import { answerUsing, tokenBudget } from "./support/Usage.ts"

const harness = useGatewayAndFake()

const base = () => harness.gateway.baseUrl

/** Selects the fake as the provider, as a caller of a prompt completion would. */
const viaFake = () => ({
  "x-gateway-provider": "openai",
  "x-gateway-custom-host": harness.fake.baseUrl,
  authorization: "Bearer sk-upstream"
})

const greeting = {
  name: "greeting",
  model: "gpt-4o-mini",
  template: [
    { role: "system", content: "You answer as {{persona}}." },
    { role: "user", content: "Hello, I am {{user.name}} & I like <{{topic}}>" }
  ],
  parameters: { temperature: 0.2, max_tokens: 50 }
}

const variables = { persona: "a pirate", user: { name: "Ada" }, topic: "ships" }

const createPrompt = async (body: unknown = greeting, key?: string) => {
  const created = await call(base(), "POST", "/v1/prompts", { body, key })
  if (created.status !== 200) throw new Error(`creating a prompt failed: ${created.status} ${created.text}`)
  return created.body
}

const complete = (reference: string, body: unknown, headers: Record<string, string> = viaFake(), key?: string) =>
  call(base(), "POST", `/v1/prompts/${reference}/completions`, { body, headers, key })

const client = () =>
  new OpenAI({
    apiKey: "sk-upstream",
    baseURL: `${base()}/v1`,
    defaultHeaders: {
      "x-gateway-api-key": ADMIN_KEY,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": harness.fake.baseUrl
    },
    maxRetries: 0
  })

describe("prompt templates: create, read, versions, publish, delete", () => {
  it("creates version 1, published, and reads it back", async () => {
    const created = await createPrompt()
    expect(created.id).toMatch(/^pp-[0-9a-f]{18}$/)
    expect(created).toMatchObject({ object: "prompt", name: "greeting", published_version: 1, latest_version: 1 })
    expect(created.template).toEqual(greeting.template)
    const read = await call(base(), "GET", `/v1/prompts/${created.id}`)
    expect(read.status).toBe(200)
    expect(read.body).toEqual(created)
  })

  it("adds versions without changing older ones, and publishes the one asked for", async () => {
    const created = await createPrompt()
    const second = await call(base(), "POST", `/v1/prompts/${created.id}/versions`, {
      body: { ...greeting, name: undefined, template: [{ role: "user", content: "v2 for {{topic}}" }] }
    })
    expect(second.status).toBe(200)
    expect(second.body).toMatchObject({ id: `${created.id}@2`, version: 2, published: false })
    // adding a version does not publish it
    expect((await call(base(), "GET", `/v1/prompts/${created.id}`)).body.published_version).toBe(1)
    const published = await call(base(), "PUT", `/v1/prompts/${created.id}/publish`, { body: { version: 2 } })
    expect(published.status).toBe(200)
    expect(published.body).toMatchObject({ published_version: 2, latest_version: 2 })
    expect(published.body.template).toEqual([{ role: "user", content: "v2 for {{topic}}" }])
    const versions = await call(base(), "GET", `/v1/prompts/${created.id}/versions`)
    expect(versions.body.object).toBe("list")
    expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1])
    expect(versions.body.data[1].template).toEqual(greeting.template)
    expect(versions.body.data.map((v: { published: boolean }) => v.published)).toEqual([true, false])
    const paged = await call(base(), "GET", `/v1/prompts/${created.id}/versions?limit=1&after=${created.id}@2`)
    expect(paged.body).toMatchObject({ has_more: false, first_id: `${created.id}@1` })
    expect((await call(base(), "GET", `/v1/prompts/${created.id}/versions?order=up`)).body.error.param).toBe("order")
  })

  it("refuses to publish a version that does not exist, naming the field", async () => {
    const created = await createPrompt()
    const refused = await call(base(), "PUT", `/v1/prompts/${created.id}/publish`, { body: { version: 3 } })
    expect(refused.status).toBe(400)
    expect(refused.body.error.param).toBe("version")
    expect((await call(base(), "PUT", `/v1/prompts/${created.id}/publish`, { body: { version: 0 } })).status).toBe(400)
  })

  it("lists in the list shape, a page at a time with limit and after", async () => {
    const key = await createKey(base(), ["prompts.read", "prompts.write"], { workspace: "ws-prompts-list" })
    const ids: Array<string> = []
    for (const name of ["one", "two", "three"]) ids.push((await createPrompt({ ...greeting, name }, key)).id)
    const first = await call(base(), "GET", "/v1/prompts?limit=2", { key })
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ object: "list", has_more: true })
    expect(first.body.data).toHaveLength(2)
    const rest = await call(base(), "GET", `/v1/prompts?limit=2&after=${first.body.last_id}`, { key })
    expect(rest.body.has_more).toBe(false)
    const seen = [...first.body.data, ...rest.body.data].map((p: { id: string }) => p.id)
    expect(seen.sort()).toEqual([...ids].sort())
    const ascending = await call(base(), "GET", "/v1/prompts?order=asc&limit=100", { key })
    expect(ascending.body.data.map((p: { name: string }) => p.name)).toEqual(["one", "two", "three"])
    expect((await call(base(), "GET", "/v1/prompts?limit=101", { key })).body.error.param).toBe("limit")
    expect((await call(base(), "GET", "/v1/prompts?after=pp-nope", { key })).body.error.param).toBe("after")
  })

  it("deletes a prompt: every reference to it is then a 404", async () => {
    const created = await createPrompt()
    expect((await call(base(), "DELETE", `/v1/prompts/${created.id}`)).status).toBe(200)
    expect((await call(base(), "GET", `/v1/prompts/${created.id}`)).status).toBe(404)
    expect((await complete(created.id, { variables })).status).toBe(404)
  })

  it("keeps prompts in their workspace: another workspace's id is a 404", async () => {
    const created = await createPrompt()
    const other = await createKey(base(), ["prompts.read", "completions"], { workspace: "ws-prompts-other" })
    expect((await call(base(), "GET", `/v1/prompts/${created.id}`, { key: other })).status).toBe(404)
    expect((await complete(created.id, { variables }, viaFake(), other)).status).toBe(404)
  })

  it("needs prompts.read to read, prompts.write to write and completions to complete", async () => {
    const created = await createPrompt()
    const reader = await createKey(base(), ["prompts.read"])
    const completer = await createKey(base(), ["completions"])
    expect((await call(base(), "GET", `/v1/prompts/${created.id}`, { key: reader })).status).toBe(200)
    expect((await call(base(), "POST", "/v1/prompts", { key: reader, body: greeting })).status).toBe(403)
    expect((await complete(created.id, { variables }, viaFake(), reader)).status).toBe(403)
    expect((await complete(created.id, { variables }, viaFake(), completer)).status).toBe(200)
    expect((await call(base(), "GET", "/v1/prompts", { key: completer })).status).toBe(403)
    expect((await call(base(), "GET", "/v1/prompts", { key: "" })).status).toBe(401)
  })

  it("answers 404 for an unknown prompt on every route that names one", async () => {
    const unknown = "pp-000000000000000000"
    const routes: ReadonlyArray<readonly [string, string, unknown]> = [
      ["GET", `/v1/prompts/${unknown}`, undefined],
      ["DELETE", `/v1/prompts/${unknown}`, undefined],
      ["GET", `/v1/prompts/${unknown}/versions`, undefined],
      ["POST", `/v1/prompts/${unknown}/versions`, { template: greeting.template }],
      ["PUT", `/v1/prompts/${unknown}/publish`, { version: 1 }],
      ["POST", `/v1/prompts/${unknown}/render`, { variables }],
      ["POST", `/v1/prompts/${unknown}@latest/render`, { variables }],
      ["POST", `/v1/prompts/${unknown}/completions`, { variables }]
    ]
    for (const [method, path, body] of routes) {
      const answer = await call(base(), method, path, { body, headers: viaFake() })
      expect([method, path, answer.status]).toEqual([method, path, 404])
      expect(answer.body.error.type).toBe("not_found_error")
    }
  })

  it("refuses bad version and publish bodies with a 400 naming the field", async () => {
    const created = await createPrompt()
    const addVersion = (body: unknown) => call(base(), "POST", `/v1/prompts/${created.id}/versions`, { body })
    expect((await addVersion({ name: "x", template: greeting.template })).body.error.param).toBe("name")
    expect((await addVersion({ template: [{ role: "robot", content: "x" }] })).body.error.param).toMatch(
      /^template\[0\]/
    )
    expect((await addVersion({ template: [{ role: "user", content: "{{/x}}" }] })).body.error.param).toBe(
      "template[0].content"
    )
    const publish = (body: unknown) => call(base(), "PUT", `/v1/prompts/${created.id}/publish`, { body })
    expect((await publish({ version: "2" })).body.error.param).toBe("version")
    expect((await publish({ version: 1.5 })).body.error.param).toBe("version")
    expect((await publish({})).body.error.param).toBe("version")
    expect((await call(base(), "GET", `/v1/prompts/${created.id}`)).body.latest_version).toBe(1)
  })

  it.each([
    [{ ...greeting, template: [] }, "template"],
    [{ ...greeting, template: undefined }, "template"],
    [{ ...greeting, template: [{ role: "user", content: "{{#items}}open" }] }, "template[0].content"],
    [{ ...greeting, template: [{ role: "user", content: "{{> footer}}" }] }, "template[0].content"],
    [{ ...greeting, parameters: { temperature: 3 } }, "parameters.temperature"],
    [{ ...greeting, parameters: { messages: [] } }, "parameters.messages"],
    [{ ...greeting, provider: "openai", integration: "main" }, "integration"],
    [{ ...greeting, colour: "blue" }, "colour"],
    [{ ...greeting, name: "" }, "name"]
  ])("refuses a bad definition with a 400 naming the field (%#)", async (body, param) => {
    const refused = await call(base(), "POST", "/v1/prompts", { body })
    expect(refused.status).toBe(400)
    expect(refused.body.error.param).toBe(param)
    expect(refused.body.error.message).toContain(param)
  })

  it("names where a template does not parse", async () => {
    const refused = await call(base(), "POST", "/v1/prompts", {
      body: { ...greeting, template: [{ role: "user", content: "fine" }, { role: "user", content: "{{#a}}x{{/b}}" }] }
    })
    expect(refused.body.error.message).toMatch(/^template\[1\]\.content: .*Unclosed section "a"/)
  })
})

describe("rendering", () => {
  it("renders the chat request without calling a provider, never HTML-escaping", async () => {
    const created = await createPrompt()
    const rendered = await call(base(), "POST", `/v1/prompts/${created.id}/render`, { body: { variables } })
    expect(rendered.status).toBe(200)
    expect(rendered.body).toEqual({
      model: "gpt-4o-mini",
      temperature: 0.2,
      max_tokens: 50,
      messages: [
        { role: "system", content: "You answer as a pirate." },
        { role: "user", content: "Hello, I am Ada & I like <ships>" }
      ]
    })
    expect(harness.fake.requests).toHaveLength(0)
  })

  it("puts the request's root-level hyperparameters over the saved ones", async () => {
    const created = await createPrompt()
    const rendered = await call(base(), "POST", `/v1/prompts/${created.id}/render`, {
      body: { variables, temperature: 0.9, model: "gpt-4o", seed: 7 }
    })
    expect(rendered.body).toMatchObject({ model: "gpt-4o", temperature: 0.9, max_tokens: 50, seed: 7 })
  })

  it("answers 400 naming a variable the template uses but the request lacks", async () => {
    const created = await createPrompt()
    const missing = await call(base(), "POST", `/v1/prompts/${created.id}/render`, {
      body: { variables: { persona: "a pirate", user: {}, topic: "ships" } }
    })
    expect(missing.status).toBe(400)
    expect(missing.body.error.param).toBe("variables.user.name")
    expect(missing.body.error.message).toContain("variables.user.name")
  })

  it("renders sections over lists, inverted sections and partials", async () => {
    const created = await createPrompt({
      name: "order",
      model: "gpt-4o-mini",
      template: [{
        role: "user",
        content:
          "{{#items}}- {{qty}} x {{name}}{{#note}} ({{.}}){{/note}}\n{{/items}}{{^items}}nothing{{/items}}{{> sign}}"
      }],
      partials: { sign: "-- {{shop.name}}" }
    })
    const render = (vars: unknown) =>
      call(base(), "POST", `/v1/prompts/${created.id}/render`, { body: { variables: vars } })
    const full = await render({
      shop: { name: "Corner" },
      items: [{ qty: 2, name: "tea", note: "green" }, { qty: 1, name: "cake", note: false }]
    })
    expect(full.body.messages[0].content).toBe("- 2 x tea (green)\n- 1 x cake\n-- Corner")
    expect((await render({ shop: { name: "Corner" }, items: [] })).body.messages[0].content).toBe("nothing-- Corner")
    const lacking = await render({ shop: { name: "Corner" }, items: [{ qty: 1, note: false }] })
    expect(lacking.body.error.param).toBe("variables.items[0].name")
  })

  it("refuses bad run bodies with a 400 naming the field", async () => {
    const created = await createPrompt()
    const render = (body: unknown) => call(base(), "POST", `/v1/prompts/${created.id}/render`, { body })
    expect((await render({})).body.error.param).toBe("variables")
    expect((await render({ variables: "x" })).body.error.param).toBe("variables")
    expect((await render({ variables, messages: [] })).body.error.param).toBe("messages")
    expect((await render({ variables, temperature: 5 })).body.error.param).toBe("temperature")
  })
})

describe("POST /v1/prompts/{id}/completions", () => {
  it("answers {status, headers, body}, and the provider receives exactly what render answers", async () => {
    const created = await createPrompt()
    const rendered = await call(base(), "POST", `/v1/prompts/${created.id}/render`, { body: { variables } })
    const answer = await complete(created.id, { variables })
    expect(answer.status).toBe(200)
    expect(answer.body.status).toBe("success")
    expect(answer.body.body.object).toBe("chat.completion")
    expect(answer.body.body.choices[0].message.content).toBe("echo: Hello, I am Ada & I like <ships>")
    expect(answer.body.headers["x-gateway-provider"]).toBe("openai")
    expect(answer.body.headers["x-gateway-trace-id"]).toBeDefined()
    expect(harness.fake.requests).toHaveLength(1)
    expect(harness.fake.requests[0]?.body).toEqual(rendered.body)
  })

  it("runs the published version, @latest the newest and @N the one named; 404 for an unknown one", async () => {
    const created = await createPrompt()
    await call(base(), "POST", `/v1/prompts/${created.id}/versions`, {
      body: { model: "gpt-4o-mini", template: [{ role: "user", content: "second about {{topic}}" }] }
    })
    const said = async (reference: string) =>
      (await complete(reference, { variables })).body.body?.choices[0].message.content
    expect(await said(created.id)).toBe("echo: Hello, I am Ada & I like <ships>")
    expect(await said(`${created.id}@latest`)).toBe("echo: second about ships")
    expect(await said(`${created.id}@1`)).toBe("echo: Hello, I am Ada & I like <ships>")
    expect(await said(`${created.id}@2`)).toBe("echo: second about ships")
    await call(base(), "PUT", `/v1/prompts/${created.id}/publish`, { body: { version: 2 } })
    expect(await said(created.id)).toBe("echo: second about ships")
    expect((await complete(`${created.id}@3`, { variables })).status).toBe(404)
    expect((await complete("pp-000000000000000000", { variables })).status).toBe(404)
    expect((await complete(`${created.id}@first`, { variables })).status).toBe(400)
  })

  it("streams the chat completion's own SSE with stream: true", async () => {
    const created = await createPrompt()
    const response = await fetch(`${base()}/v1/prompts/${created.id}/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gateway-api-key": ADMIN_KEY, ...viaFake() },
      body: JSON.stringify({ variables, stream: true })
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/event-stream")
    expect(response.headers.get("x-gateway-provider")).toBe("openai")
    const events = sseData(await response.text())
    expect(events.at(-1)).toBe("[DONE]")
    const text = events.slice(0, -1).map((event) => JSON.parse(event).choices[0]?.delta?.content ?? "").join("")
    expect(text).toBe("echo: Hello, I am Ada & I like <ships>")
    expect(harness.fake.requests[0]?.body).toMatchObject({ stream: true })
  })

  it("works through the openai client, plain and streamed", async () => {
    const created = await createPrompt()
    const plain = await client().post<{ status: string; body: OpenAI.ChatCompletion }>(
      `/prompts/${created.id}/completions`,
      { body: { variables } }
    )
    expect(plain.status).toBe("success")
    expect(plain.body.choices[0]?.message.content).toBe("echo: Hello, I am Ada & I like <ships>")
    const stream = await client().post<OpenAI.ChatCompletionChunk>(`/prompts/${created.id}/completions`, {
      body: { variables, stream: true },
      stream: true
    })
    let text = ""
    for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>) {
      text += chunk.choices[0]?.delta.content ?? ""
    }
    expect(text).toBe("echo: Hello, I am Ada & I like <ships>")
  })

  it("uses the prompt's own provider when the request selects none", async () => {
    const created = await createPrompt({ ...greeting, provider: "openai" })
    const answer = await complete(created.id, { variables }, {
      "x-gateway-custom-host": harness.fake.baseUrl,
      authorization: "Bearer sk-upstream"
    })
    expect(answer.status).toBe(200)
    expect(harness.fake.requests[0]?.headers.authorization).toBe("Bearer sk-upstream")
  })

  it("uses the integration the prompt names, with its stored credentials", async () => {
    const slug = `prompt-${Date.now()}`
    const integration = await call(base(), "POST", "/v1/integrations", {
      body: { slug, provider: "openai", api_key: "sk-integration", custom_host: harness.fake.baseUrl }
    })
    expect(integration.status).toBe(200)
    const created = await createPrompt({ ...greeting, integration: slug })
    const answer = await complete(created.id, { variables }, {})
    expect(answer.status).toBe(200)
    expect(answer.body.headers["x-gateway-provider"]).toBe(`@${slug}`)
    expect(harness.fake.requests[0]?.headers.authorization).toBe("Bearer sk-integration")
  })

  it("runs the cache of the request's config: the same run again is a HIT, the provider called once", async () => {
    const created = await createPrompt()
    const config = JSON.stringify({
      provider: "openai",
      api_key: "sk-upstream",
      custom_host: harness.fake.baseUrl,
      cache: { mode: "simple" }
    })
    const run = { variables: { ...variables, topic: `cache ${created.id}` } }
    const first = await complete(created.id, run, { "x-gateway-config": config })
    const second = await complete(created.id, run, { "x-gateway-config": config })
    expect(first.body.headers["x-gateway-cache-status"]).toBe("MISS")
    expect(second.body.headers["x-gateway-cache-status"]).toBe("HIT")
    expect(second.body.body).toEqual(first.body.body)
    expect(harness.fake.requests).toHaveLength(1)
  })

  it("runs input guardrails on the rendered messages: a denied run never reaches the provider", async () => {
    const created = await createPrompt()
    const config = JSON.stringify({
      provider: "openai",
      api_key: "sk-upstream",
      custom_host: harness.fake.baseUrl,
      input_guardrails: [{ "default.contains": { words: ["ships"], operator: "none" }, deny: true }]
    })
    const denied = await complete(created.id, { variables }, { "x-gateway-config": config })
    expect(denied.status).toBe(446)
    expect(harness.fake.requests).toHaveLength(0)
    const allowed = await complete(created.id, { variables: { ...variables, topic: "boats" } }, {
      "x-gateway-config": config
    })
    expect(allowed.status).toBe(200)
  })

  it("retries as the config says", async () => {
    const created = await createPrompt()
    const config = JSON.stringify({
      provider: "openai",
      api_key: "sk-upstream",
      custom_host: harness.fake.baseUrl,
      retry: { attempts: 2, on_status_codes: [503] }
    })
    harness.fake.enqueue(Behaviour.json(503, { error: { message: "busy" } }))
    const answer = await complete(created.id, { variables }, { "x-gateway-config": config })
    expect(answer.status).toBe(200)
    expect(answer.body.headers["x-gateway-retry-attempt-count"]).toBe("1")
    expect(harness.fake.requests).toHaveLength(2)
  })

  it("is held to the caller's rate-limit policies, as a chat completion is", async () => {
    const created = await createPrompt()
    const key = await call(base(), "POST", "/v1/api-keys", {
      body: { name: "prompt rates", scopes: ["completions", "prompts.write"] }
    })
    const policy = await call(base(), "POST", "/v1/policies/rate-limits", {
      body: {
        name: "prompt runs",
        conditions: [{ key: "api_key", value: key.body.id }],
        group_by: [{ key: "api_key" }],
        type: "requests",
        unit: "rpm",
        value: 1
      }
    })
    expect(policy.status).toBe(200)
    const first = await complete(created.id, { variables }, viaFake(), key.body.key)
    expect(first.status).toBe(200)
    expect(first.body.headers["x-ratelimit-remaining-requests"]).toBe("0")
    const refused = await complete(created.id, { variables }, viaFake(), key.body.key)
    expect(refused.status).toBe(429)
    expect(refused.body.error.code).toBe("rate_limit_exceeded")
    expect(harness.fake.requests).toHaveLength(1)
  })

  it("counts its usage against the caller's usage-limit policies, then 412 once the budget is spent", async () => {
    const created = await createPrompt()
    const key = await call(base(), "POST", "/v1/api-keys", {
      body: { name: "prompt budget", scopes: ["completions", "prompts.write", "policies.read"] }
    })
    const policy = await call(base(), "POST", "/v1/policies/usage-limits", {
      body: tokenBudget(key.body.id, 30, "prompt tokens")
    })
    expect(policy.status).toBe(200)
    harness.fake.enqueue(answerUsing(20, 12))
    const first = await complete(created.id, { variables }, viaFake(), key.body.key)
    expect(first.status).toBe(200)
    const usage = await call(base(), "GET", `/v1/policies/usage-limits/${policy.body.id}?include_usage=true`, {
      key: key.body.key
    })
    expect(usage.body.value_key_usage_map[`api_key:${key.body.id}`]).toMatchObject({ usage: 32 })
    const refused = await complete(created.id, { variables }, viaFake(), key.body.key)
    expect(refused.status).toBe(412)
    expect(refused.body.error.message).toContain("prompt tokens")
    expect(harness.fake.requests).toHaveLength(1)
  })

  it("reads a run's body under the inference limit (GATEWAY_MAX_BODY), not the management one", async () => {
    const created = await createPrompt()
    const document = "d".repeat(2 * 1024 * 1024)
    const answer = await complete(created.id, { variables: { ...variables, topic: document } })
    expect(answer.status).toBe(200)
    expect(answer.body.body.choices[0].message.content).toContain(document)
    const tooLarge = await complete(created.id, { variables: { ...variables, topic: "d".repeat(11 * 1024 * 1024) } })
    expect(tooLarge.status).toBe(413)
  })

  it("answers 400 without any provider, and passes an upstream error through", async () => {
    const created = await createPrompt()
    expect((await complete(created.id, { variables }, {})).status).toBe(400)
    harness.fake.enqueue(Behaviour.json(429, { error: { message: "slow down", type: "rate_limit" } }))
    const limited = await complete(created.id, { variables })
    expect(limited.status).toBe(429)
    expect(limited.body.error.message).toBe("slow down")
  })
})

describe("prompt_id in a config", () => {
  it("falls back from one prompt to another: each leaf renders its own", async () => {
    const first = await createPrompt({ ...greeting, template: [{ role: "user", content: "A: {{topic}}" }] })
    const second = await createPrompt({
      ...greeting,
      model: "gpt-4o",
      template: [{ role: "user", content: "B: {{topic}}" }]
    })
    const leaf = { provider: "openai", api_key: "sk-upstream", custom_host: harness.fake.baseUrl }
    const config = {
      strategy: { mode: "fallback" },
      targets: [{ ...leaf, prompt_id: first.id }, { ...leaf, prompt_id: `${second.id}@latest` }]
    }
    harness.fake.enqueue(Behaviour.json(500, { error: { message: "down" } }))
    const answer = await complete(first.id, { variables }, { "x-gateway-config": JSON.stringify(config) })
    expect(answer.status).toBe(200)
    expect(answer.body.body.choices[0].message.content).toBe("echo: B: ships")
    expect(answer.body.headers["x-gateway-last-used-option-index"]).toBe("config.targets[1]")
    expect(harness.fake.requests.map((request) => request.body)).toMatchObject([
      { model: "gpt-4o-mini", messages: [{ content: "A: ships" }] },
      { model: "gpt-4o", messages: [{ content: "B: ships" }] }
    ])
  })

  it("load-balances over prompts: a weight-0 prompt is never drawn", async () => {
    const never = await createPrompt({ ...greeting, template: [{ role: "user", content: "never" }] })
    const always = await createPrompt({ ...greeting, template: [{ role: "user", content: "always {{topic}}" }] })
    const config = {
      strategy: { mode: "loadbalance" },
      provider: "openai",
      api_key: "sk-upstream",
      custom_host: harness.fake.baseUrl,
      targets: [{ prompt_id: never.id, weight: 0 }, { prompt_id: always.id, weight: 1 }]
    }
    for (let i = 0; i < 3; i++) {
      const answer = await complete(never.id, { variables }, { "x-gateway-config": JSON.stringify(config) })
      expect(answer.body.body.choices[0].message.content).toBe("echo: always ships")
    }
  })

  it("runs leaves that name only their prompt on each prompt's own integration", async () => {
    const slug = `ab-${Date.now()}`
    await call(base(), "POST", "/v1/integrations", {
      body: { slug, provider: "openai", api_key: "sk-ab", custom_host: harness.fake.baseUrl }
    })
    const never = await createPrompt({ ...greeting, integration: slug, template: [{ role: "user", content: "A" }] })
    const always = await createPrompt({
      ...greeting,
      integration: slug,
      template: [{ role: "user", content: "B {{topic}}" }]
    })
    const config = {
      strategy: { mode: "loadbalance" },
      targets: [{ prompt_id: never.id, weight: 0 }, { prompt_id: always.id }]
    }
    const answer = await complete(never.id, { variables }, { "x-gateway-config": JSON.stringify(config) })
    expect(answer.status).toBe(200)
    expect(answer.body.body.choices[0].message.content).toBe("echo: B ships")
    expect(answer.body.headers["x-gateway-provider"]).toBe(`@${slug}`)
    expect(answer.body.headers["x-gateway-last-used-option-index"]).toBe("config.targets[1]")
    expect(harness.fake.requests[0]?.headers.authorization).toBe("Bearer sk-ab")
  })

  it("streams from the leaf's own prompt", async () => {
    const path = await createPrompt()
    const own = await createPrompt({ ...greeting, template: [{ role: "user", content: "own {{topic}}" }] })
    const config = {
      provider: "openai",
      api_key: "sk-upstream",
      custom_host: harness.fake.baseUrl,
      prompt_id: `${own.id}@1`
    }
    const response = await fetch(`${base()}/v1/prompts/${path.id}/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gateway-api-key": ADMIN_KEY,
        "x-gateway-config": JSON.stringify(config)
      },
      body: JSON.stringify({ variables, stream: true })
    })
    const events = sseData(await response.text())
    const text = events.slice(0, -1).map((event) => JSON.parse(event).choices[0]?.delta?.content ?? "").join("")
    expect(text).toBe("echo: own ships")
  })

  it("answers 404 when a leaf's prompt does not exist", async () => {
    const path = await createPrompt()
    const config = {
      provider: "openai",
      api_key: "sk-upstream",
      custom_host: harness.fake.baseUrl,
      prompt_id: "pp-000000000000000000"
    }
    const answer = await complete(path.id, { variables }, { "x-gateway-config": JSON.stringify(config) })
    expect(answer.status).toBe(404)
    expect(harness.fake.requests).toHaveLength(0)
  })

  it("answers 400 naming prompt_id on a chat completion", async () => {
    const created = await createPrompt()
    const config = {
      provider: "openai",
      api_key: "sk-upstream",
      custom_host: harness.fake.baseUrl,
      prompt_id: created.id
    }
    const refused = await call(base(), "POST", "/v1/chat/completions", {
      headers: { "x-gateway-config": JSON.stringify(config) },
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }
    })
    expect(refused.status).toBe(400)
    expect(refused.body.error.param).toBe("config.prompt_id")
    expect(harness.fake.requests).toHaveLength(0)
  })
})
