import { Sha256 } from "@aws-crypto/sha256-js"
import { EventStreamCodec } from "@smithy/eventstream-codec"
import { SignatureV4 } from "@smithy/signature-v4"
import { fromUtf8, toUtf8 } from "@smithy/util-utf8"
import { FakeBedrock } from "@switchyard/fake-providers"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"

const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" }
const converseBody = { messages: [{ role: "user", content: [{ text: "hi" }] }] }
let fake: FakeBedrock.FakeBedrock

beforeAll(async () => {
  fake = await FakeBedrock.start({ credentials, region: "us-east-1" })
})
afterEach(() => fake.reset())
afterAll(() => fake.close())

/** A request signed as the AWS SDK signs it, with the given secret. */
const signedPost = async (path: string, body: unknown, secretAccessKey = credentials.secretAccessKey) => {
  const text = JSON.stringify(body)
  const signer = new SignatureV4({
    credentials: { ...credentials, secretAccessKey },
    region: "us-east-1",
    service: "bedrock",
    sha256: Sha256
  })
  const host = `127.0.0.1:${fake.port}`
  const signed = await signer.sign({
    method: "POST",
    protocol: "http:",
    hostname: "127.0.0.1",
    path,
    headers: { host, "content-type": "application/json" },
    body: text
  })
  const headers = Object.fromEntries(Object.entries(signed.headers).filter(([name]) => name !== "host"))
  return fetch(`${fake.baseUrl}${path}`, { method: "POST", headers, body: text })
}

describe("FakeBedrock", () => {
  it("answers a correctly signed Converse request", async () => {
    const response = await signedPost("/model/amazon.nova-lite-v1%3A0/converse", converseBody)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ stopReason: "end_turn", output: { message: { role: "assistant" } } })
    expect(fake.requests[0]).toMatchObject({ modelId: "amazon.nova-lite-v1:0", operation: "converse" })
  })

  it("refuses a signature made with the wrong secret with AWS's 403", async () => {
    const response = await signedPost("/model/m/converse", converseBody, "wrong-secret")
    expect(response.status).toBe(403)
    expect(response.headers.get("x-amzn-errortype")).toMatch(/^InvalidSignatureException:/)
    expect(await response.json()).toMatchObject({
      message: expect.stringMatching(/^The request signature we calculated does not match/)
    })
  })

  it("refuses an unsigned request", async () => {
    const response = await fetch(`${fake.baseUrl}/model/m/converse`, { method: "POST", body: "{}" })
    expect(response.status).toBe(403)
    expect(await response.json()).toEqual({ message: "Missing Authentication Token" })
  })

  it("answers a body that breaks Converse's rules with a ValidationException", async () => {
    const body = { messages: [{ role: "assistant", content: [{ text: "hi" }] }] }
    const response = await signedPost("/model/m/converse", body)
    expect(response.status).toBe(400)
    expect(response.headers.get("x-amzn-errortype")).toMatch(/^ValidationException:/)
  })

  it("streams event-stream frames the codec decodes", async () => {
    const response = await signedPost("/model/m/converse-stream", converseBody)
    expect(response.headers.get("content-type")).toBe("application/vnd.amazon.eventstream")
    const bytes = new Uint8Array(await response.arrayBuffer())
    const codec = new EventStreamCodec(toUtf8, fromUtf8)
    const types: Array<unknown> = []
    for (let offset = 0; offset < bytes.length;) {
      const length = new DataView(bytes.buffer, offset, 4).getUint32(0)
      types.push(codec.decode(bytes.subarray(offset, offset + length)).headers[":event-type"]?.value)
      offset += length
    }
    expect(types).toEqual([
      "messageStart",
      "contentBlockDelta",
      "contentBlockDelta",
      "contentBlockDelta",
      "contentBlockStop",
      "messageStop",
      "metadata"
    ])
  })
})
