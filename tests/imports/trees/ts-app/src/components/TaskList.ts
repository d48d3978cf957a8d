import { TaskItem, User, titleOf } from "@/types";
import { TaskItems } from "@/types";
import { Project } from "~lib/format";
import formatDate from "@/lib/format";
import shout, { slugify } from "../lib/strings.js";
import type { TaskStatus } from "@/types/task";
import { renderRow } from "./TaskRow";
import { loadBoard } from "@/api/board";
import { accent } from "board-theme";
import { DEFAULT_STATUS as initial } from "../types/task";

export function render(tasks: TaskItem[], owner: User, status: TaskStatus = initial): string[] {
  const rows = tasks.map((t) => renderRow(slugify(titleOf(t)), accent));
  return [shout(owner.displayName), status, ...rows, String(TaskItems), String(Project), formatDate(new Date()), String(loadBoard)];
}
