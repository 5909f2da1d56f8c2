import type { FakeOpenAI } from "@switchyard/fake-providers"

/** Requests and parsing shared by the fake's tests. */
export const postTo = (fake: FakeOpenAI.FakeOpenAI) => (path: string, body: unknown, init: RequestInit = {}) =>
  fetch(`${fake.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "authorization": "Bearer sk-test" },
    body: JSON.stringify(body),
    ...init
  })

export const chat = {
  model: "gpt-4o-mini",
  messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hello there" }]
}

/** The data of each SSE event, in order. */
export const sseData = (text: string): Array<string> =>
  text.split("\n\n").filter((event) => event.startsWith("data: ")).map((event) => event.slice("data: ".length))
