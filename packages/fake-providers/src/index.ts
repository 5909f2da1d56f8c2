export * as Behaviour from "./Behaviour.ts"
export * as FakeOpenAI from "./FakeOpenAI.ts"
