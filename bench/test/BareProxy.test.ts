import { FakeOpenAI } from "@switchyard/fake-providers"
import { afterAll, beforeAll, expect, it } from "vitest"
import * as BareProxy from "../src/BareProxy.ts"
import { chatPath, chatRequest } from "../src/ChatRequestBody.ts"

let fake: FakeOpenAI.FakeOpenAI
let proxy: BareProxy.BareProxy

beforeAll(async () => {
  fake = await FakeOpenAI.start()
  proxy = await BareProxy.start({ upstream: `http://127.0.0.1:${fake.port}` })
})
afterAll(async () => {
  await proxy.close()
  await fake.close()
})

it("forwards a chat request to the upstream and relays its answer", async () => {
  const response = await fetch(`${proxy.url}${chatPath}`, {
    method: "POST",
    headers: { "content-type": "application/json", "authorization": "Bearer sk-bench" },
    body: JSON.stringify(chatRequest, null, 2)
  })
  expect(response.status).toBe(200)
  expect(await response.json()).toMatchObject({
    object: "chat.completion",
    model: chatRequest.model,
    choices: [{ message: { content: "echo: Great, how long does delivery to Lyon take?" } }]
  })
  expect(fake.requests).toHaveLength(1)
  expect(fake.requests[0]).toMatchObject({
    method: "POST",
    path: chatPath,
    headers: { "authorization": "Bearer sk-bench", "content-type": "application/json" },
    body: chatRequest
  })
})

it("answers 502 when the body is not JSON", async () => {
  const response = await fetch(`${proxy.url}${chatPath}`, { method: "POST", body: "{" })
  expect(response.status).toBe(502)
})
