/**
 * Known-answer vectors from AWS's Signature Version 4 test suite
 * (https://docs.aws.amazon.com/general/latest/gr/signature-v4-test-suite.html, aws-sig-v4-test-suite):
 * credentials AKIDEXAMPLE / wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY, region us-east-1, service
 * `service`, date 20150830T123600Z, host example.amazonaws.com. The suite's vectors sign no
 * payload-hash header, hence `applyChecksum: false` here only.
 */
import { assert, describe, it } from "@effect/vitest"
import { BedrockAdapter } from "@switchyard/providers"
import { Effect } from "effect"

const suite = {
  credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" },
  region: "us-east-1",
  service: "service",
  applyChecksum: false
}
const date = new Date("2015-08-30T12:36:00Z")
const url = new URL("https://example.amazonaws.com/")
const scope = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request"

/** `post-sts-token/post-sts-header-before`: the session token is signed as x-amz-security-token. */
const stsToken =
  "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA=="

describe("BedrockSigner", () => {
  it.effect("signs get-vanilla as AWS's test suite expects", () =>
    Effect.promise(async () => {
      const headers = await BedrockAdapter.BedrockSigner.make(suite)({
        method: "GET",
        url,
        headers: {},
        body: "",
        date
      })
      assert.strictEqual(
        headers.authorization,
        `${scope}, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31`
      )
      assert.strictEqual(headers["x-amz-date"], "20150830T123600Z")
    }))

  it.effect("signs post-vanilla as AWS's test suite expects", () =>
    Effect.promise(async () => {
      const headers = await BedrockAdapter.BedrockSigner.make(suite)({
        method: "POST",
        url,
        headers: {},
        body: "",
        date
      })
      assert.strictEqual(
        headers.authorization,
        `${scope}, SignedHeaders=host;x-amz-date, Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b`
      )
    }))

  it.effect("signs the session token as post-sts-header-before expects", () =>
    Effect.promise(async () => {
      const sign = BedrockAdapter.BedrockSigner.make({
        ...suite,
        credentials: { ...suite.credentials, sessionToken: stsToken }
      })
      const headers = await sign({ method: "POST", url, headers: {}, body: "", date })
      assert.strictEqual(headers["x-amz-security-token"], stsToken)
      assert.strictEqual(
        headers.authorization,
        `${scope}, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead`
      )
    }))

  it.effect("sends the payload hash and signs for service bedrock by default", () =>
    Effect.promise(async () => {
      const sign = BedrockAdapter.BedrockSigner.make({ credentials: suite.credentials, region: "eu-west-1" })
      const headers = await sign({ method: "POST", url, headers: {}, body: "", date })
      // SHA-256 of the empty payload
      assert.strictEqual(
        headers["x-amz-content-sha256"],
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
      )
      assert.include(
        headers.authorization ?? "",
        "/20150830/eu-west-1/bedrock/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date"
      )
    }))
})
