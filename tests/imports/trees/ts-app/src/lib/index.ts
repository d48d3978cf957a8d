export * from "./strings";
export * from "./colors";
