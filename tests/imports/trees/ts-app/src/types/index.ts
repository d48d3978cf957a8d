export * from "./task";
export * from "./user";
export { formatTitle as titleOf, formatWeek } from "../lib/format";
