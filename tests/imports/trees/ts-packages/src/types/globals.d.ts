export declare const API_VERSION: string;
declare const BUILD_ID: string;
declare function track(event: string): void;
