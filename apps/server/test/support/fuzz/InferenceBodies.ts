/**
 * Bodies of the inference endpoints: one to three changes to a valid body, each a member given a
 * value of any type, a required member removed, a member no one knows, or an endpoint's own change.
 */
import fc from "fast-check"
import { type FuzzRequest, viaFake, type World } from "./FuzzRequest.ts"
import { type BodySpec, chatSpec, completionSpec, embeddingSpec, type Mutation, mutation } from "./InferenceSpecs.ts"
import { type JsonRecord, setAt, short, toText } from "./JsonText.ts"
import { unknownName, wrongValue } from "./ValueArbitraries.ts"

const fieldMutation = (spec: BodySpec): fc.Arbitrary<Mutation> =>
  fc.oneof(
    // a known member given a value of any type
    {
      weight: 8,
      arbitrary: fc.tuple(fc.constantFrom(...Object.keys(spec.fields)), wrongValue).map(([name, value]) => {
        const rule = spec.fields[name]
        return mutation(
          `${name} = ${short(value)}`,
          [name],
          value,
          rule !== undefined && !rule[0](value) ? rule[1] : undefined
        )
      })
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...spec.required).map((name) =>
        mutation(`no ${name}`, [name], undefined, `${name} is required`)
      )
    },
    // a member no one knows: providers take extra parameters, so a 2xx is fine
    {
      weight: 2,
      arbitrary: fc.tuple(unknownName, wrongValue).map(([name, value]) =>
        mutation(`unknown member ${JSON.stringify(name)} = ${short(value)}`, [name], value)
      )
    },
    { weight: 4, arbitrary: fc.oneof(...spec.specials) }
  )

const mutatedBody = (spec: BodySpec, mutations: ReadonlyArray<Mutation>) => {
  let body: JsonRecord = spec.base
  const applied: Array<Mutation> = []
  for (const change of mutations) {
    const next = setAt(body, change.path, change.value)
    if (!next.applied) continue
    // a later change to a member replaces what an earlier one said about it or inside it
    const prefix = change.path.join(".")
    for (let index = applied.length - 1; index >= 0; index--) {
      if (applied[index]?.path.join(".").startsWith(prefix)) applied.splice(index, 1)
    }
    body = next.value
    applied.push(change)
  }
  return { body, applied }
}

export const inferenceBody = (world: World, spec: BodySpec): fc.Arbitrary<FuzzRequest> =>
  fc.tuple(fc.array(fieldMutation(spec), { minLength: 1, maxLength: 3 }), fc.boolean()).map(([mutations, stream]) => {
    const { body, applied } = mutatedBody(spec, mutations)
    const streamed = stream && spec.name !== "embeddings" && !applied.some((m) => m.path[0] === "stream")
    return {
      label: `${spec.name}: ${applied.map((m) => m.label).join("; ")}${streamed ? " (stream)" : ""}`,
      method: "POST",
      path: spec.path,
      headers: viaFake(world),
      body: toText(streamed ? { ...body, stream: true } : body),
      refuse: applied.find((m) => m.refuse !== undefined)?.refuse
    }
  })

export const validChatText = toText(chatSpec.base)
export const inferencePath = fc.constantFrom(chatSpec.path, completionSpec.path, embeddingSpec.path)
export const validBodyOf = (path: string): string =>
  toText([chatSpec, completionSpec, embeddingSpec].find((spec) => spec.path === path)?.base ?? chatSpec.base)
