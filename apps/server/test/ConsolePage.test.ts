/**
 * GET /console in a real browser: Debian's Chromium, driven by playwright-core, against a real
 * gateway and the fake provider on 127.0.0.1. A request is made, a usage-limit policy counts it,
 * a circuit is tripped through the fake failing; then the console, signed in with the admin key,
 * must show each of them. Screenshots go to apps/server/test-output/console/ (gitignored).
 */
import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { existsSync } from "node:fs"
import { mkdir, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, chatVia, createKey } from "./support/Admin.ts"
import { chatBody } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const SCREENSHOTS = fileURLToPath(new URL("../test-output/console/", import.meta.url))

// a loaded 2-core CI machine can take many seconds to start Chromium
const SLOW = 90_000
/** How long the page may take to show what the gateway has: a poll or two. */
const SHOWN = 20_000

/** A secret stored in an integration and a config: no page may show it. */
const SECRET = "sk-console-secret-0123456789abcdef"

let fake: FakeOpenAI.FakeOpenAI
let gateway: GatewayProcess.GatewayProcess
let context: BrowserContext
let profile: string
/** What the page asked of another host, or reported as an error (a CSP refusal among them). */
const elsewhere: Array<string> = []
const failures: Array<string> = []

/** A chat answer with known usage. */
const answered = Behaviour.json(200, {
  id: "chatcmpl-console",
  object: "chat.completion",
  created: 0,
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop", logprobs: null }],
  usage: { prompt_tokens: 1234, completion_tokens: 567, total_tokens: 1801 }
})

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (as .ci/run does), or set CHROMIUM_PATH`)
  }
  await mkdir(SCREENSHOTS, { recursive: true })
  fake = await FakeOpenAI.start()
  gateway = await GatewayProcess.start()
  profile = await mkdtemp(join(tmpdir(), "switchyard-console-chromium-"))
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    timeout: SLOW,
    serviceWorkers: "block",
    viewport: { width: 1360, height: 860 },
    // no sandbox as root; no background calls home, which this machine's closed network refuses
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
  await context.route("**/*", (route) => {
    const url = route.request().url()
    if (new URL(url).hostname === "127.0.0.1") return route.continue()
    elsewhere.push(url)
    return route.abort("blockedbyclient")
  })
}, SLOW)

afterAll(async () => {
  await context?.close()
  await gateway?.stop()
  await fake?.close()
  if (profile !== undefined) await rm(profile, { recursive: true, force: true })
})

/** Opens a circuit (threshold 1) on the fake for `model`: its one attempt fails with 500. */
const trip = (model: string) => {
  fake.enqueue(Behaviour.json(500, { error: { message: "down" } }))
  return chatVia(gateway.baseUrl, GatewayProcess.ADMIN_KEY, {
    "x-gateway-config": JSON.stringify({
      provider: "openai",
      api_key: "sk-circuit",
      custom_host: fake.baseUrl,
      override_params: { model },
      cb_config: { failure_threshold: 1, cooldown_interval: 60_000 }
    })
  }, chatBody())
}

/** A new tab on the console, its errors collected. */
const openConsole = async (hash = ""): Promise<Page> => {
  const page = await context.newPage()
  // a request the Content-Security-Policy refuses never reaches the route: Chromium reports it here
  page.on("console", (message) => {
    if (message.type() === "error") failures.push(`console: ${message.text()}`)
  })
  page.on("pageerror", (error) => failures.push(`page: ${error.message}`))
  await page.goto(`${gateway.baseUrl}/console${hash}`, { waitUntil: "load", timeout: SLOW })
  return page
}

const signIn = async (page: Page, key: string) => {
  await page.getByLabel("API key").fill(key)
  await page.getByRole("button", { name: "Sign in" }).click()
}

const screenshot = async (page: Page, name: string) => {
  const path = join(SCREENSHOTS, `${name}.png`)
  await page.screenshot({ path, fullPage: true })
  console.log(`screenshot: ${path}`)
}

/** What the tab keeps: every localStorage entry, every sessionStorage value, and the browser's cookies. */
const storageOf = async (page: Page) => ({
  ...(await page.evaluate(() => ({
    local: Object.keys(localStorage).map((name) => `${name}=${localStorage.getItem(name)}`),
    session: Object.keys(sessionStorage).map((name) => sessionStorage.getItem(name))
  }))),
  cookies: await context.cookies()
})

describe("the console in Chromium", () => {
  it(
    "shows a request just made with its status and tokens, its detail, a policy's usage and an open circuit",
    async () => {
      // a key of its own, which a cost policy counts
      const created = await call(gateway.baseUrl, "POST", "/v1/api-keys", {
        body: { name: "console team", scopes: ["completions"] }
      })
      const team = { id: created.body.id as string, key: created.body.key as string }
      const policy = await call(gateway.baseUrl, "POST", "/v1/policies/usage-limits", {
        body: {
          name: "console budget",
          conditions: [{ key: "api_key", value: team.id }],
          group_by: [{ key: "api_key" }],
          type: "cost",
          credit_limit: 0.01
        }
      })
      expect(policy.status, policy.text).toBe(200)
      await call(gateway.baseUrl, "POST", "/v1/policies/rate-limits", {
        body: {
          name: "console rate",
          conditions: [{ key: "api_key", value: team.id }],
          group_by: [{ key: "api_key" }],
          type: "requests",
          unit: "rpm",
          value: 600
        }
      })
      await call(gateway.baseUrl, "POST", "/v1/integrations", {
        body: { slug: "console-openai", provider: "openai", name: "Console OpenAI", api_key: SECRET }
      })
      await call(gateway.baseUrl, "POST", "/v1/configs", {
        body: { name: "console config", config: { provider: "openai", api_key: SECRET } }
      })

      fake.enqueue(answered)
      // with a guardrail on its way in, whose result the detail shows
      const guarded = JSON.stringify({
        provider: "openai",
        api_key: "sk-upstream",
        custom_host: fake.baseUrl,
        input_guardrails: [{ id: "console-words", "default.wordCount": { minWords: 1 } }]
      })
      const asked = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-gateway-api-key": team.key, "x-gateway-config": guarded },
        body: JSON.stringify(chatBody())
      })
      expect(asked.status).toBe(200)
      const traceId = asked.headers.get("x-gateway-trace-id") ?? ""
      expect(traceId).not.toBe("")

      // a circuit that opens on its first failure
      expect((await trip("gpt-4o-mini")).status).toBe(500)

      const page = await openConsole()
      await signIn(page, GatewayProcess.ADMIN_KEY)

      // requests: the request just made, with its status and tokens
      const row = page.locator("tr", { has: page.locator(`code:text-is("${traceId}")`) })
      await row.waitFor({ timeout: SHOWN })
      await expect.poll(() => row.innerText()).toMatch(/200/)
      expect(await row.innerText()).toContain("1,234 in / 567 out")
      expect(await row.innerText()).toContain("gpt-4o-mini")
      await page.locator("tr", { hasText: "500" }).first().waitFor({ timeout: SHOWN })
      await screenshot(page, "requests")

      // its detail: trace id, target path, retries, tokens, cost
      await row.getByRole("link").click()
      const detail = page.getByTestId("request-detail")
      await detail.waitFor({ timeout: SHOWN })
      const details = await detail.innerText()
      expect(details).toContain(traceId)
      expect(details).toMatch(/Input tokens\s+1,234/)
      expect(details).toMatch(/Output tokens\s+567/)
      expect(details).toMatch(/Total tokens\s+1,801/)
      expect(details).toMatch(/Cost\s+\$\d/)
      expect(details).toMatch(/Retries\s+\d/)
      expect(details).toMatch(/Target path/)
      // and its hooks' results: the guardrail passed before the provider
      const hooks = await page.getByTestId("hook-results").innerText()
      expect(hooks).toContain("console-words")
      expect(hooks).toMatch(/before the provider\s+config\s+pass/)
      expect(hooks).toContain("default.wordCount")
      await screenshot(page, "request-detail")

      // usage: the policy's usage for the team key, and the chart
      await page.getByRole("link", { name: "Usage" }).click()
      const card = page.locator(`article[data-policy="${policy.body.id}"]`)
      await card.waitFor({ timeout: SHOWN })
      await expect.poll(() => card.innerText(), { timeout: SHOWN }).toContain(team.id)
      expect(await card.innerText()).toMatch(/\$\d/)
      expect(await page.locator("svg.chart rect.bar").count()).toBe(60)
      await screenshot(page, "usage")

      // policies: both kinds
      await page.getByRole("link", { name: "Policies" }).click()
      await page.getByText("console rate").waitFor({ timeout: SHOWN })
      await page.getByText("console budget").waitFor({ timeout: SHOWN })
      await screenshot(page, "policies")

      // circuits: the one the fake's failure opened
      await page.getByRole("link", { name: "Circuits" }).click()
      const open = page.locator("tr.circuit-open")
      await open.waitFor({ timeout: SHOWN })
      expect(await open.innerText()).toContain(fake.baseUrl)
      expect(await open.innerText()).toMatch(/Open/)
      // live: a circuit opened while the page is shown appears without a reload
      expect((await trip("gpt-4o")).status).toBe(500)
      await expect.poll(() => open.count(), { timeout: SHOWN }).toBe(2)
      await screenshot(page, "circuits")

      // integrations, configs and API keys: there, their secrets not
      const pages: ReadonlyArray<readonly [string, string]> = [
        ["Integrations", "@console-openai"],
        ["Configs", "console config"],
        ["API keys", "console team"]
      ]
      for (const [link, shown] of pages) {
        await page.getByRole("link", { name: link }).click()
        await page.getByText(shown).first().waitFor({ timeout: SHOWN })
        expect(await page.content()).not.toContain(SECRET)
        expect(await page.content()).not.toContain(team.key)
      }
      await screenshot(page, "api-keys")

      expect(elsewhere).toEqual([])
      expect(failures).toEqual([])
      await page.close()
    },
    SLOW * 2
  )

  it("refuses a wrong key with a clear error, and keeps the key in sessionStorage only", async () => {
    const page = await openConsole()
    await signIn(page, "sk-not-a-key")
    const alert = page.getByRole("alert")
    await alert.waitFor({ timeout: SHOWN })
    expect(await alert.innerText()).toMatch(/^The gateway refused this key: /)
    expect(await storageOf(page)).toEqual({ local: [], session: [], cookies: [] })
    await screenshot(page, "wrong-key")

    const reader = await createKey(gateway.baseUrl, ["logs.read"])
    await signIn(page, reader)
    await page.getByRole("link", { name: "Requests" }).waitFor({ timeout: SHOWN })
    expect(await storageOf(page)).toEqual({ local: [], session: [reader], cookies: [] })

    // a page the key has no scope for says so
    await page.getByRole("link", { name: "Circuits" }).click()
    expect(await page.getByRole("alert").innerText()).toMatch(/may not see this page.*admin/)

    // the key is this tab's: another tab must sign in again
    const other = await openConsole()
    await other.getByLabel("API key").waitFor({ timeout: SHOWN })
    expect(await storageOf(other)).toEqual({ local: [], session: [], cookies: [] })
    await other.close()

    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByLabel("API key").waitFor({ timeout: SHOWN })
    expect(await storageOf(page)).toEqual({ local: [], session: [], cookies: [] })
    // Chromium logs the 401 of the wrong key and the 403s of the circuits page; any other error counts
    expect(elsewhere).toEqual([])
    expect(failures.filter((failure) => !/status of (401|403)/.test(failure))).toEqual([])
    await page.close()
  }, SLOW * 2)

  it("serves the page with a Content-Security-Policy that allows nothing but this gateway", async () => {
    const answer = await fetch(`${gateway.baseUrl}/console`)
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toMatch(/^text\/html/)
    const policy = answer.headers.get("content-security-policy") ?? ""
    expect(policy.split("; ").toSorted()).toEqual([
      "base-uri 'none'",
      "connect-src 'self'",
      "default-src 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
      "img-src 'self'",
      "script-src 'self'",
      "style-src 'self'"
    ])
    const html = await answer.text()
    expect(html).not.toMatch(/<script>|style=|https?:\/\//)
    const assets: ReadonlyArray<readonly [string, string]> = [
      ["/console/console.js", "text/javascript"],
      ["/console/console.css", "text/css"]
    ]
    for (const [path, type] of assets) {
      const asset = await fetch(`${gateway.baseUrl}${path}`)
      expect(asset.status, path).toBe(200)
      expect(asset.headers.get("content-type"), path).toContain(type)
      expect(asset.headers.get("x-content-type-options"), path).toBe("nosniff")
    }
  })
})
