/**
 * GET /docs in a real browser: Debian's Chromium, driven by playwright-core. Every request the
 * page makes is intercepted; one for any host other than 127.0.0.1 fails the test.
 */
import { Routes } from "@switchyard/server"
import { existsSync } from "node:fs"
import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as GatewayProcess from "./support/GatewayProcess.ts"

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

// A loaded 2-core CI machine can take many seconds to start Chromium and run Swagger UI.
const SLOW = 90_000

let gateway: GatewayProcess.GatewayProcess
let browser: Browser

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (as .ci/run does), or set CHROMIUM_PATH`)
  }
  gateway = await GatewayProcess.start()
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    timeout: SLOW,
    // no sandbox as root; no background calls home, which this machine's closed network refuses
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
}, SLOW)

afterAll(async () => {
  await browser?.close()
  await gateway?.stop()
})

describe("GET /docs in Chromium", () => {
  it("lists every route of the table, locked where it needs a key, loading nothing from another host", async () => {
    const context = await browser.newContext({ serviceWorkers: "block" })
    const elsewhere: Array<string> = []
    const failures: Array<string> = []
    await context.route("**/*", (route) => {
      const url = route.request().url()
      if (new URL(url).hostname === "127.0.0.1") return route.continue()
      elsewhere.push(url)
      return route.abort("blockedbyclient")
    })
    await context.routeWebSocket(/.*/, (socket) => {
      elsewhere.push(socket.url())
      return socket.close()
    })
    const page = await context.newPage()
    // a request the Content-Security-Policy refuses never reaches the route above: Chromium
    // reports it on the console as an error instead
    page.on("console", (message) => {
      if (message.type() === "error") failures.push(`console: ${message.text()}`)
    })
    page.on("pageerror", (error) => failures.push(`page: ${error.message}`))
    page.on("requestfailed", (request) => {
      if (new URL(request.url()).hostname === "127.0.0.1") failures.push(`failed: ${request.url()}`)
    })

    try {
      await page.goto(`${gateway.baseUrl}/docs`, { waitUntil: "load", timeout: SLOW })
      // Swagger UI renders every operation at once: waiting for the last one waits for them all
      await page.locator(".opblock").nth(Routes.table.length - 1).waitFor({ timeout: SLOW }).catch((error) => {
        throw new Error(`/docs did not list ${Routes.table.length} operations (${error}); the page reported:
${[...elsewhere, ...failures].join("\n")}`)
      })
      const listed = await page.locator(".opblock-summary").evaluateAll((summaries) =>
        summaries.map((summary) => ({
          route: `${summary.querySelector(".opblock-summary-method")?.textContent} ${
            summary.querySelector(".opblock-summary-path")?.getAttribute("data-path")
          }`,
          locked: summary.querySelector(".authorization__btn") !== null
        }))
      )

      expect(elsewhere).toEqual([])
      expect(failures).toEqual([])
      expect(listed.toSorted((a, b) => a.route.localeCompare(b.route))).toEqual(
        Routes.table.map((route) => ({
          route: `${route.method} ${route.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`,
          locked: route.scope !== null
        })).toSorted((a, b) => a.route.localeCompare(b.route))
      )
    } finally {
      await context.close()
    }
  }, SLOW * 2)
})
