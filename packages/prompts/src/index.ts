export * as PromptRun from "./PromptRun.ts"
export * as PromptStage from "./PromptStage.ts"
export * as PromptStore from "./PromptStore.ts"
export * as Template from "./Template.ts"
