import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"

export const rateLimitedOnce = async () => {
  const fake = await FakeOpenAI.start() // { port?: number (0 = any free port), record?: boolean }
  fake.enqueue(Behaviour.json(429, { error: { message: "slow down" } }, { "retry-after": "2" }))
  const chat = { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] }
  const request = { method: "POST", body: JSON.stringify(chat) }
  const first = await fetch(`${fake.baseUrl}/chat/completions`, request) // 429, retry-after: 2
  const second = await fetch(`${fake.baseUrl}/chat/completions`, request) // the default, Behaviour.reply()
  const answer: unknown = await second.json() // a chat.completion answering "echo: Hi"
  const recorded = fake.requests[0] // { method, path, headers (lower-case), body (parsed JSON or raw text), chunksWrittenAt }
  fake.setDefault(Behaviour.slowStream(100)) // from now on, when the queue is empty
  fake.reset() // clears requests, queue and default
  await fake.close()
  return { statuses: [first.status, second.status], retryAfter: first.headers.get("retry-after"), answer, recorded }
}
