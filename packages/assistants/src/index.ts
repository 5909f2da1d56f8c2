export * as RunRequest from "./RunRequest.ts"
export * as Runs from "./Runs.ts"
export * as RunSelection from "./RunSelection.ts"
export * as ThreadStore from "./ThreadStore.ts"
