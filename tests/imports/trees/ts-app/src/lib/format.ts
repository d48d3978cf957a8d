import type { TaskItem } from "@/types/task";

export function formatTitle(task: TaskItem): string {
  return `#${task.id} ${task.title}`;
}

export function formatDate(when: Date): string {
  return when.toISOString().slice(0, 10);
}
