// The manifest, the README and the source agree with each other.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { CONTRACT_PATTERNS, INSTALL_URL, LANGUAGES } from '../src/constants';

// compiled to out/test/*.test.js: the package is two folders up
const ROOT = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const props: Record<string, { scope?: string; default?: unknown; description?: string; markdownDescription?: string }> =
  pkg.contributes.configuration.properties;

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
function anchors(markdown: string): string[] {
  return [...markdown.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)]
    .map((m) => m[1].toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, '').replace(/\s/g, '-'));
}

describe('package.json', () => {
  it('pins @types/vscode to engines.vscode and vscode-languageclient 11.0.0 as a dependency', () => {
    assert.equal(pkg.engines.vscode, '^1.91.0');
    assert.equal(pkg.devDependencies['@types/vscode'], pkg.engines.vscode.slice(1));
    assert.equal(pkg.dependencies['vscode-languageclient'], '11.0.0');
    assert.equal(pkg.devDependencies['vscode-languageclient'], undefined);
    for (const [name, version] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
      assert.match(String(version), /^\d+\.\d+\.\d+$/, `${name} is not pinned exactly`);
    }
  });

  it('restricts, in untrusted workspaces, every setting that names a program', () => {
    const executables = Object.keys(props).filter((k) => /Path$/.test(k));
    assert.deepEqual(executables.sort(), ['specward.pythonPath', 'specward.serverPath']);
    assert.deepEqual([...pkg.capabilities.untrustedWorkspaces.restrictedConfigurations].sort(), executables.sort());
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
    for (const k of executables) {
      assert.equal(props[k].scope, 'machine', k);
    }
  });

  it('documents every setting and gives it a default', () => {
    for (const [k, p] of Object.entries(props)) {
      assert.ok(p.description || p.markdownDescription, `${k} has no description`);
      assert.ok('default' in p, `${k} has no default`);
    }
    assert.deepEqual(Object.keys(props).sort(), [
      'specward.contracts', 'specward.pythonPath', 'specward.serverPath', 'specward.severity', 'specward.trace.server',
    ]);
  });

  it('activates on every language the client sends to the server, and on contract files', () => {
    for (const lang of LANGUAGES) {
      assert.ok(pkg.activationEvents.includes(`onLanguage:${lang}`), lang);
    }
    assert.ok(pkg.activationEvents.includes('workspaceContains:**/*.dsl.json'));
    assert.ok(pkg.activationEvents.includes('workspaceContains:**/openapi.yaml'));
    assert.deepEqual([...CONTRACT_PATTERNS], ['**/*.dsl.json', '**/{openapi,swagger}.{json,yaml,yml}']);
  });

  it('contributes the two commands, restart also in the editor context menu', () => {
    const titles = Object.fromEntries(pkg.contributes.commands.map((c: { command: string; title: string }) => [c.command, c.title]));
    assert.deepEqual(titles, { 'specward.restartServer': 'specward: Restart Server', 'specward.showOutput': 'specward: Show Output' });
    const ctx = pkg.contributes.menus['editor/context'];
    assert.deepEqual(ctx.map((m: { command: string }) => m.command), ['specward.restartServer']);
    const when = new RegExp(/=~ \/(.*)\/$/.exec(ctx[0].when)![1]);
    for (const name of ['articles.dsl.json', 'openapi.yaml', 'openapi.yml', 'swagger.json']) {
      assert.ok(when.test(name), name);
    }
    for (const name of ['profile.ts', 'package.json', 'my-openapi.yaml.bak']) {
      assert.ok(!when.test(name), name);
    }
  });
});

describe('README', () => {
  it('has the section "Install instructions" opens', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const anchor = INSTALL_URL.split('#')[1];
    assert.ok(INSTALL_URL.includes('/client-vscode/README.md#'));
    assert.ok(anchors(readme).includes(anchor), `no heading for #${anchor} in README.md`);
  });
});

describe('pure modules', () => {
  it('do not import vscode (they run under node --test)', () => {
    for (const file of ['constants', 'diagnosticsDump', 'serverCommand', 'settings', 'status', 'which']) {
      const src = fs.readFileSync(path.join(ROOT, 'src', `${file}.ts`), 'utf8');
      assert.doesNotMatch(src, /from ['"]vscode['"]|require\(['"]vscode['"]\)/, file);
    }
  });
});
