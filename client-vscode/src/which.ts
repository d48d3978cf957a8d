// A `which`: find an executable by bare name on PATH, or check an absolute path.
// No `vscode` import: unit-tested under Node's test runner.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export type Which = (nameOrPath: string) => string | undefined;

export interface WhichOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  homedir?: string;
}

function isExecutableFile(file: string, platform: NodeJS.Platform): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) {
      return false;
    }
    if (platform === 'win32') {
      return true;
    }
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Make a `which` probe.
 *
 * - A bare name (`specward`, `python3`) is searched in the *absolute* entries of PATH only:
 *   an empty or relative entry (`.`, `bin`) would resolve against the current directory,
 *   which may be an untrusted workspace, so it is skipped.
 * - A path (`/opt/venv/bin/specward`, `~/.local/bin/specward`) must be absolute after `~`
 *   expansion and an executable file.
 * - On Windows the extensions of PATHEXT are tried as well.
 */
export function makeWhich(opts: WhichOptions = {}): Which {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  const home = opts.homedir ?? os.homedir();
  const p = platform === 'win32' ? path.win32 : path.posix;
  const exts = platform === 'win32'
    ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter(Boolean).map((e) => e.toLowerCase())]
    : [''];
  const candidates = (base: string) => exts.map((e) => base + e);

  return (nameOrPath: string) => {
    let name = nameOrPath.trim();
    if (!name) {
      return undefined;
    }
    if (name === '~' || name.startsWith('~/') || name.startsWith('~\\')) {
      name = p.join(home, name.slice(1));
    }
    const hasSep = name.includes('/') || (platform === 'win32' && name.includes('\\'));
    if (hasSep) {
      if (!p.isAbsolute(name)) {
        return undefined;
      }
      return candidates(name).find((c) => isExecutableFile(c, platform));
    }
    const pathVar = (platform === 'win32' ? env.Path ?? env.PATH : env.PATH) ?? '';
    for (const dir of pathVar.split(p.delimiter)) {
      if (!dir || !p.isAbsolute(dir)) {
        continue;
      }
      const hit = candidates(p.join(dir, name)).find((c) => isExecutableFile(c, platform));
      if (hit) {
        return hit;
      }
    }
    return undefined;
  };
}
