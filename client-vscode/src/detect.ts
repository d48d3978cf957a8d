// Is there anything for specward in a workspace folder? Pure: no `vscode` import.
//
// extension.ts asks VS Code for the files matching DETECT_GLOBS (constants.ts) in each
// workspace folder and reads the folder's pyproject.toml; `detect` decides on those paths
// and that text whether the language server should start. It counts:
//   1. a specward.toml, anywhere in the folder;
//   2. a `[tool.specward]` table in the folder's pyproject.toml (the one the server reads);
//   3. a contract by its name: `*.dsl.json`, or a .json/.yaml/.yml file whose name contains
//      "openapi" or "swagger" (any case);
// and none of them inside a folder the server always skips (node_modules, .venv, dist, ...).

import { SKIPPED_FOLDERS } from './constants';

export type Why = 'config' | 'pyproject' | 'contract';

export interface Found {
  found: true;
  why: Why;
  /** Relative to the workspace folder, with `/`. */
  path: string;
}

export interface NotFound {
  found: false;
  /** What was seen that did not count, one sentence each (for the log and the tooltip). */
  notes: string[];
}

export type Detection = Found | NotFound;

/** What `detect` looks for, in words (the status item's tooltip and the log say it). */
export const LOOKED_FOR = 'a specward.toml; a [tool.specward] table in pyproject.toml; ' +
  'a SpecDSL contract (*.dsl.json); an OpenAPI or Swagger contract (a .json, .yaml or .yml file ' +
  'whose name contains "openapi" or "swagger"); a TypeScript, JavaScript, Vue, Svelte or Python ' +
  'file (its imports are checked without a contract) — outside node_modules, .venv, dist and the ' +
  'other folders specward skips';

const SKIPPED: ReadonlySet<string> = new Set(SKIPPED_FOLDERS);
const PYPROJECT_PATH = 'pyproject.toml';

function normalize(p: string): string[] {
  return p.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.');
}

export function isConfigName(name: string): boolean {
  return name === 'specward.toml';
}

export function isContractName(name: string): boolean {
  return name.endsWith('.dsl.json') || (/\.(json|ya?ml)$/.test(name) && /openapi|swagger/i.test(name));
}

/** A file specward analyzes (SOURCE_GLOB in constants.ts): enough to start the server. */
export function isSourceName(name: string): boolean {
  return /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|vue|svelte|py|pyi)$/.test(name);
}

function whyOf(name: string): Why | undefined {
  if (isConfigName(name)) {
    return 'config';
  }
  return isContractName(name) ? 'contract' : undefined;
}

/**
 * Decides for one workspace folder.
 * @param paths files found there (relative to the folder; `/` or `\`), in any order; names
 *   that are neither a specward.toml nor a contract are ignored
 * @param pyprojectText the text of the folder's own pyproject.toml, undefined when it has none
 */
export function detect(paths: readonly string[], pyprojectText: string | undefined): Detection {
  const candidates: Array<{ why: Why; path: string; depth: number }> = [];
  for (const p of paths) {
    const parts = normalize(p);
    const name = parts.at(-1);
    const why = name === undefined ? undefined : whyOf(name);
    if (why === undefined) {
      continue;
    }
    if (parts.slice(0, -1).some((s) => SKIPPED.has(s))) {
      continue; // the server never reads it
    }
    candidates.push({ why, path: parts.join('/'), depth: parts.length });
  }

  const rank: Record<Why, number> = { config: 0, pyproject: 1, contract: 2 };
  if (pyprojectText !== undefined && hasSpecwardTable(pyprojectText)) {
    candidates.push({ why: 'pyproject', path: PYPROJECT_PATH, depth: 1 });
  }
  candidates.sort((a, b) => rank[a.why] - rank[b.why] || a.depth - b.depth || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (candidates.length) {
    const { why, path } = candidates[0];
    return { found: true, why, path };
  }

  const notes = pyprojectText === undefined ? [] : ['pyproject.toml has no [tool.specward] table.'];
  return { found: false, notes };
}

/**
 * What a file event in a folder with nothing for specward calls for (paths relative to the
 * workspace folder): `look` — it may have changed detect()'s answer, look again; `ifFolder` —
 * look again only if it is a new folder (VS Code reports a folder that appears with its
 * files, by a move, a copy or a checkout, as that folder alone); `ignore` — it cannot matter.
 */
export function eventNeeds(path: string, kind: 'created' | 'changed'): 'look' | 'ifFolder' | 'ignore' {
  const parts = normalize(path);
  if (parts.length === 0 || parts.some((s) => SKIPPED.has(s))) {
    return 'ignore'; // a skipped folder itself, or anything inside one
  }
  const name = parts[parts.length - 1];
  if ((parts.length === 1 && name === PYPROJECT_PATH) || whyOf(name) !== undefined || (kind === 'created' && isSourceName(name))) {
    return 'look';
  }
  return kind === 'created' ? 'ifFolder' : 'ignore';
}

/** "contracts/openapi.yaml (a contract)" and the like, for the log. */
export function describe(found: Found): string {
  switch (found.why) {
    case 'config':
      return `${found.path} (specward's configuration)`;
    case 'pyproject':
      return `${found.path} (its [tool.specward] table)`;
    case 'contract':
      return `${found.path} (a contract, by its name)`;
  }
}

/** The status item's tooltip when no folder has anything for specward. */
export function nothingMessage(folders: ReadonlyArray<{ name: string; notes: readonly string[] }>): string {
  const notes = folders.flatMap((f) => f.notes.map((n) => (folders.length > 1 ? `${f.name}: ${n}` : n)));
  return [
    `Looked for ${LOOKED_FOR}.`,
    ...notes,
    'The server starts as soon as one of these appears; "specward: Restart Server" starts it anyway.',
  ].join('\n\n');
}

// ---- pyproject.toml --------------------------------------------------------------------

const BARE_KEY = '[A-Za-z0-9_-]+';
const QUOTED_KEY = `"(?:[^"\\\\]|\\\\.)*"|'[^']*'`;
const KEY_PART = `(?:${BARE_KEY}|${QUOTED_KEY})`;
const DOTTED_KEY = `${KEY_PART}(?:\\s*\\.\\s*${KEY_PART})*`;
const HEADER = new RegExp(`^\\s*\\[\\[?\\s*(${DOTTED_KEY})\\s*\\]\\]?\\s*(?:#.*)?$`);
const KEY_VALUE = new RegExp(`^\\s*(${DOTTED_KEY})\\s*=(.*)$`);
const PART = new RegExp(`\\s*(${KEY_PART})\\s*(?:\\.|$)`, 'y');

/** `tool."specward".x` → ['tool', 'specward', 'x']. */
function splitKey(key: string): string[] {
  const parts: string[] = [];
  PART.lastIndex = 0;
  for (let m = PART.exec(key); m !== null && m[0] !== ''; m = PART.exec(key)) {
    const k = m[1];
    parts.push(k.startsWith('"') || k.startsWith("'") ? k.slice(1, -1) : k);
  }
  return parts;
}

const isSpecward = (key: readonly string[]) => key.length >= 2 && key[0] === 'tool' && key[1] === 'specward';

/** The delimiter of a multi-line string that `value` opens and does not close, if any. */
function opensMultiline(value: string): string | undefined {
  const v = value.trimStart();
  for (const delim of ['"""', "'''"]) {
    if (v.startsWith(delim)) {
      return v.indexOf(delim, 3) < 0 ? delim : undefined;
    }
  }
  return undefined;
}

/**
 * Whether a pyproject.toml defines the `tool.specward` table: `[tool.specward]`, one of its
 * sub-tables (`[tool.specward.severity]`), or dotted keys (`specward.cache = false` under
 * `[tool]`, `tool.specward.cache = false` at the top). Header-like lines inside multi-line
 * strings and comments do not count. It does not validate the file; the server does.
 */
export function hasSpecwardTable(text: string): boolean {
  let table: string[] = [];
  let open: string | undefined; // inside a multi-line string closed by this delimiter
  for (const line of text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/)) {
    if (open !== undefined) {
      if (line.includes(open)) {
        open = undefined;
      }
      continue;
    }
    const header = HEADER.exec(line);
    if (header) {
      table = splitKey(header[1]);
      if (isSpecward(table)) {
        return true;
      }
      continue;
    }
    const kv = KEY_VALUE.exec(line);
    if (kv) {
      if (isSpecward([...table, ...splitKey(kv[1])])) {
        return true;
      }
      open = opensMultiline(kv[2]);
    }
  }
  return false;
}
