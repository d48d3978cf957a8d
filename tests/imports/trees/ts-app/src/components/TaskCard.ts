import type { TaskItem, TaskStaus } from "../types";
import { formatDate as day } from "../lib/format";
import * as strings from "../lib/strings";

export function card(task: TaskItem, when: Date, state: TaskStaus): string {
  return `${strings.slugify(task.title)} ${day(when)} ${state}`;
}
