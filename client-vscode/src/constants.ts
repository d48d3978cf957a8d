// Constants shared by extension.ts and the unit tests. Pure: no `vscode` import.

/** Where "Install instructions" leads: the README section on installing the server. */
export const INSTALL_URL = 'https://github.com/specward/specward/blob/main/client-vscode/README.md#install-the-server';

/** Languages whose documents the server analyzes (calls) or reads (contracts). */
export const LANGUAGES = [
  'typescript', 'typescriptreact', 'javascript', 'javascriptreact', 'vue', 'svelte', 'python', 'json', 'yaml',
] as const;

/** A glob for `word` in any letter case: `api` → `[aA][pP][iI]`. */
function anyCase(word: string): string {
  return [...word].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join('');
}

/** specward's own configuration file (the server reads the one at the workspace root). */
export const CONFIG_GLOB = '**/specward.toml';
/** SpecDSL contracts. */
export const DSL_GLOB = '**/*.dsl.json';
/**
 * OpenAPI / Swagger contracts by name: a `.json`, `.yaml` or `.yml` file whose name contains
 * "openapi" or "swagger" in any letter case (`openapi.yaml`, `orders-openapi.json`,
 * `Swagger.json`); the server reads the content to tell a contract from anything else.
 */
export const OPENAPI_GLOBS = [
  `**/*${anyCase('openapi')}*.{json,yaml,yml}`,
  `**/*${anyCase('swagger')}*.{json,yaml,yml}`,
] as const;
/** The workspace folder's pyproject.toml; it counts when it has a `[tool.specward]` table. */
export const PYPROJECT = 'pyproject.toml';

/** Contract files by name, whatever language VS Code gives them. */
export const CONTRACT_PATTERNS = [DSL_GLOB, ...OPENAPI_GLOBS] as const;

/**
 * What makes a workspace folder one for specward, as globs relative to the folder: the
 * `workspaceContains:` activation events (in this order) and the file watcher that starts
 * the server once one appears. `detect.ts` decides on the paths they find.
 */
export const DETECT_GLOBS = [CONFIG_GLOB, ...CONTRACT_PATTERNS, PYPROJECT] as const;

/**
 * Folders the server always skips (`DEFAULT_EXCLUDE` in server/engine/config.py; a unit test
 * compares the two). A contract or a specward.toml inside one does not count.
 */
export const SKIPPED_FOLDERS = [
  'node_modules', '.git', '.hg', '.svn', 'dist', 'build', 'out', '.next', '.nuxt', '.svelte-kit',
  '.output', 'coverage', '__pycache__', '.venv', 'venv', 'env', '.env', '.tox', '.nox',
  '.mypy_cache', '.pytest_cache', '.ruff_cache', 'site-packages', '.specward', 'target', 'bower_components',
] as const;

/** Source files specward analyzes: one is enough to start the server (the import checks need no contract). */
export const SOURCE_GLOB = '**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs,vue,svelte,py,pyi}';

/** The same folders as one glob, for `workspace.findFiles`'s exclude argument. */
export const SKIPPED_GLOB = `**/{${SKIPPED_FOLDERS.join(',')}}/**`;

/** The LLM stages' specs, written by "Generate spec" (`specs/<slug>.md`). */
export const SPEC_GLOB = '**/specs/*.md';

/** Local files only: the server reads the workspace from disk. */
export const DOCUMENT_SELECTOR = [
  ...LANGUAGES.map((language) => ({ scheme: 'file', language })),
  ...CONTRACT_PATTERNS.map((pattern) => ({ scheme: 'file', pattern })),
  // specs (specs/<slug>.md): the code action "Generate contract" is asked for there
  { scheme: 'file', pattern: SPEC_GLOB },
];
