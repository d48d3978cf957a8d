// user.ts and index.ts re-export each other: a cycle the checks must survive
export * from "./index";

export interface User {
  id: string;
  displayName: string;
}
