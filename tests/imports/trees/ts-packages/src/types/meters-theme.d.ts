import type { MeterOptions } from 'meters';

export type Theme = 'dark' | 'light';

declare module 'meters' {
    interface MeterOptions { theme?: Theme }
    export function themed(options: MeterOptions): string;
}
