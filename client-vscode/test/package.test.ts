// `vsce package`, run directly (as the marketplace docs tell publishers), builds the bundle
// itself (vscode:prepublish) and packs only what the extension needs.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { readZip, type ZipEntry } from './zip';

// compiled to out/test/*.test.js: the package is two folders up
const ROOT = path.resolve(__dirname, '..', '..');
const VSCE = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
const LEFT_OUT = new Set(['node_modules', 'dist', 'out']);

describe('the .vsix from a plain `vsce package`', { skip: !fs.existsSync(VSCE) && 'run npm ci first' }, () => {
  let tmp: string;
  let entries: ZipEntry[];
  let log: string;

  before(() => {
    // a copy of the package without dist/ (so only vscode:prepublish can make the bundle),
    // sharing node_modules; the checkout is left as it was
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'specward-vsix-'));
    const copy = path.join(tmp, 'client-vscode');
    fs.cpSync(ROOT, copy, {
      recursive: true,
      filter: (src) => {
        const rel = path.relative(ROOT, src);
        return !LEFT_OUT.has(rel.split(path.sep)[0]) && !rel.endsWith('.vsix');
      },
    });
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
    assert.ok(!fs.existsSync(path.join(copy, 'dist')));
    const vsix = path.join(tmp, 'specward.vsix');
    // what `npx @vscode/vsce package` runs: no npm script around it, dependencies not skipped
    const r = spawnSync(process.execPath, [VSCE, 'package', '--out', vsix], {
      cwd: copy, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
    });
    log = `${r.stdout}\n${r.stderr}`;
    assert.equal(r.status, 0, `vsce package failed:\n${log}`);
    entries = readZip(fs.readFileSync(vsix));
  });

  after(() => {
    if (tmp) {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('ran vscode:prepublish', () => {
    assert.match(log, /vscode:prepublish/);
  });

  it('holds the bundle, the icon, the manifest, README, CHANGELOG and LICENSE, and nothing else', () => {
    assert.deepEqual(entries.map((e) => e.name).sort(), [
      '[Content_Types].xml',
      'extension.vsixmanifest',
      'extension/LICENSE.txt',
      'extension/changelog.md',
      'extension/dist/extension.js',
      'extension/images/icon.png',
      'extension/package.json',
      'extension/readme.md',
    ]);
  });

  it('has a minified bundle with the language client in it and no source map', () => {
    const js = entries.find((e) => e.name === 'extension/dist/extension.js')!.data().toString('utf8');
    assert.ok(js.length > 10_000, `${js.length} bytes`);
    assert.ok(js.split('\n').length < 100, `${js.split('\n').length} lines: not minified`);
    assert.match(js, /vscode-languageclient|LanguageClient/);
    assert.match(js, /require\("vscode"\)/);
    assert.doesNotMatch(js, /sourceMappingURL/);
  });

  it('names the icon in the packed manifest, and it is the committed PNG', () => {
    const manifest = JSON.parse(entries.find((e) => e.name === 'extension/package.json')!.data().toString('utf8'));
    assert.equal(manifest.icon, 'images/icon.png');
    assert.match(entries.find((e) => e.name === 'extension.vsixmanifest')!.data().toString('utf8'),
      /Microsoft\.VisualStudio\.Services\.Icons\.Default[^>]*extension\/images\/icon\.png/);
    assert.deepEqual(entries.find((e) => e.name === 'extension/images/icon.png')!.data(),
      fs.readFileSync(path.join(ROOT, 'images', 'icon.png')));
  });
});
