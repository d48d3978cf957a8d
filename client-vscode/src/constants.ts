// Constants shared by extension.ts and the unit tests. Pure: no `vscode` import.

/** Where "Install instructions" leads: the README section on installing the server. */
export const INSTALL_URL = 'https://github.com/specward/specward/blob/main/client-vscode/README.md#install-the-server';

/** Languages whose documents the server analyzes (calls) or reads (contracts). */
export const LANGUAGES = [
  'typescript', 'typescriptreact', 'javascript', 'javascriptreact', 'vue', 'svelte', 'python', 'json', 'yaml',
] as const;

/** Contract files by name, whatever language VS Code gives them. */
export const CONTRACT_PATTERNS = ['**/*.dsl.json', '**/{openapi,swagger}.{json,yaml,yml}'] as const;

/** Local files only: the server reads the workspace from disk. */
export const DOCUMENT_SELECTOR = [
  ...LANGUAGES.map((language) => ({ scheme: 'file', language })),
  ...CONTRACT_PATTERNS.map((pattern) => ({ scheme: 'file', pattern })),
];
