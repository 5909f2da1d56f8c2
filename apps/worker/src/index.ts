export * as Worker from "./Worker.ts"
