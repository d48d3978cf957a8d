export type TaskStatus = "todo" | "doing" | "done";

export interface TaskItem {
  id: string;
  title: string;
  status: TaskStatus;
}

export const DEFAULT_STATUS: TaskStatus = "todo";
