// The manifest, the README and the source agree with each other.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { DETECT_GLOBS, INSTALL_URL, LANGUAGES, SKIPPED_FOLDERS } from '../src/constants';
import { isConfigName, isContractName } from '../src/detect';

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

  it('restricts, in untrusted workspaces, every setting that names a program or reaches the network', () => {
    const executables = Object.keys(props).filter((k) => /Path$/.test(k));
    assert.deepEqual(executables.sort(), ['specward.pythonPath', 'specward.serverPath']);
    assert.deepEqual([...pkg.capabilities.untrustedWorkspaces.restrictedConfigurations].sort(),
      [...executables, 'specward.registryCheck'].sort());
    assert.equal(props['specward.registryCheck'].scope, 'application');
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
      'specward.contracts', 'specward.pythonPath', 'specward.registryCheck', 'specward.serverPath', 'specward.severity',
      'specward.trace.server',
    ]);
  });

  it('activates on the files detect() looks for, on the source languages the server analyzes and on its own commands', () => {
    const commands = pkg.contributes.commands.map((c: { command: string }) => c.command);
    // a plain TypeScript or Python repository has no contract and no specward.toml: its
    // phantom imports are found all the same, so opening one of its files activates
    const sources = ['typescript', 'typescriptreact', 'javascript', 'javascriptreact', 'vue', 'svelte', 'python'];
    assert.deepEqual(pkg.activationEvents, [
      ...DETECT_GLOBS.map((g) => `workspaceContains:${g}`),
      ...sources.map((l) => `onLanguage:${l}`),
      ...commands.map((c: string) => `onCommand:${c}`),
    ]);
    assert.deepEqual([...DETECT_GLOBS], [
      '**/specward.toml',
      '**/*.dsl.json',
      '**/*[oO][pP][eE][nN][aA][pP][iI]*.{json,yaml,yml}',
      '**/*[sS][wW][aA][gG][gG][eE][rR]*.{json,yaml,yml}',
      'pyproject.toml',
    ]);
    // every language it activates on is one the client sends to the server; json and yaml
    // (contracts, found by name above) do not activate it: every project has such files
    const languages: readonly string[] = LANGUAGES;
    for (const l of sources) {
      assert.ok(languages.includes(l), `${l} is not in LANGUAGES (the document selector)`);
    }
    for (const e of pkg.activationEvents) {
      assert.doesNotMatch(e, /^(onStartupFinished|\*$)|^onLanguage:(json|jsonc|yaml)$/, e);
      if (e.startsWith('workspaceContains:') && e !== 'workspaceContains:pyproject.toml') {
        // VS Code searches only patterns with * or ?; any other is taken as an exact path
        assert.match(e, /[*?]/, e);
      }
    }
    assert.equal(new Set(pkg.activationEvents).size, pkg.activationEvents.length, 'an event is listed twice');
  });

  it('has a 128x128 PNG icon', () => {
    assert.equal(pkg.icon, 'images/icon.png');
    const png = fs.readFileSync(path.join(ROOT, pkg.icon));
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(png.toString('latin1', 12, 16), 'IHDR');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
  });

  it('builds a minified bundle before vsce packages or publishes, and npm run package leaves it to that', () => {
    const { scripts } = pkg;
    assert.match(scripts.bundle, /^esbuild src\/extension\.ts --bundle --outfile=dist\/extension\.js --external:vscode /);
    assert.equal(pkg.main, './dist/extension.js');
    assert.equal(scripts['vscode:prepublish'], 'npm run bundle -- --minify');
    assert.match(scripts.build, /^npm run bundle -- --sourcemap$/);
    assert.match(scripts.package, /^vsce package\b/);
  });

  it('contributes its commands, restart and "Generate contract" also in the editor context menu', () => {
    const titles = Object.fromEntries(pkg.contributes.commands.map((c: { command: string; title: string }) => [c.command, c.title]));
    assert.deepEqual(titles, {
      'specward.restartServer': 'specward: Restart Server', 'specward.showOutput': 'specward: Show Output',
      'specward.generateSpecFromRequest': 'specward: Generate spec from request…',
      'specward.generateContractFromSpec': 'specward: Generate contract from this spec',
      'specward.discussSpec': 'specward: Discuss the open questions of this spec',
      'specward.generateSliceFromContract': 'specward: Generate slice from this contract…',
      'specward.updateAffectedCode': 'specward: Update the code this contract change affects',
      'specward.resumeInterruptedRun': 'specward: Resume an interrupted run…',
    });
    // implementing an endpoint is a code action only (on a phantom-api diagnostic): no palette entry
    assert.ok(!pkg.contributes.commands.some((c: { command: string }) => /implementEndpoint/.test(c.command)));
    const ctx = pkg.contributes.menus['editor/context'];
    assert.deepEqual(ctx.map((m: { command: string }) => m.command), ['specward.restartServer', 'specward.generateContractFromSpec']);
    // "Generate contract" only on specs/<slug>.md (VS Code's `resourcePath`, either separator)
    const specWhen = new RegExp(/=~ \/(.*)\/$/.exec(ctx[1].when)![1]);
    for (const p of ['/w/specs/notes.md', 'C:\\w\\specs\\user-login.md']) {
      assert.ok(specWhen.test(p), p);
    }
    for (const p of ['/w/specs/notes.dsl.json', '/w/docs/notes.md', '/w/specs/a/notes.md']) {
      assert.ok(!specWhen.test(p), p);
    }
    const inPalette = (command: string) => pkg.contributes.menus.commandPalette.find((m: { command: string }) => m.command === command);
    const palette = inPalette('specward.generateContractFromSpec');
    assert.equal(palette.when, ctx[1].when);
    assert.equal(inPalette('specward.discussSpec').when, ctx[1].when); // on a spec
    assert.equal(inPalette('specward.resumeInterruptedRun').when, undefined); // anywhere
    for (const command of ['specward.generateSliceFromContract', 'specward.updateAffectedCode']) { // on a contract
      const contractWhen = new RegExp(/=~ \/(.*)\/$/.exec(inPalette(command).when)![1]);
      for (const name of ['articles.dsl.json', 'openapi.yaml', 'Orders-OpenAPI.yml', 'swagger.json']) {
        assert.ok(contractWhen.test(name), `${command}: ${name}`);
      }
      for (const name of ['specward.toml', 'notes.md', 'package.json', 'swagger-ui.js']) {
        assert.ok(!contractWhen.test(name), `${command}: ${name}`);
      }
    }
    const when = new RegExp(/=~ \/(.*)\/$/.exec(ctx[0].when)![1]);
    for (const name of ['articles.dsl.json', 'openapi.yaml', 'openapi.yml', 'swagger.json', 'Orders-OpenAPI.yml', 'specward.toml']) {
      assert.ok(when.test(name), name);
    }
    for (const name of ['profile.ts', 'package.json', 'my-openapi.yaml.bak', 'pyproject.toml', 'swagger-ui.js']) {
      assert.ok(!when.test(name), name);
    }
    for (const name of ['petstore.swagger.yaml', 'openapi.JSON', 'Specward.toml', 'api.dsl.json5', 'SWAGGER.yaml']) {
      assert.equal(when.test(name), isConfigName(name) || isContractName(name), name);
    }
  });

  it('skips the folders the server skips (server/engine/config.py DEFAULT_EXCLUDE)', () => {
    const config = fs.readFileSync(path.join(ROOT, '..', 'server', 'engine', 'config.py'), 'utf8');
    const tuple = /^DEFAULT_EXCLUDE = \(([^)]*)\)/m.exec(config);
    assert.ok(tuple, 'no DEFAULT_EXCLUDE = (...) in server/engine/config.py');
    const server = [...tuple[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual([...SKIPPED_FOLDERS].sort(), server.sort());
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
    for (const file of ['constants', 'detect', 'diagnosticsDump', 'serverCommand', 'settings', 'stages', 'status', 'which']) {
      const src = fs.readFileSync(path.join(ROOT, 'src', `${file}.ts`), 'utf8');
      assert.doesNotMatch(src, /from ['"]vscode['"]|require\(['"]vscode['"]\)/, file);
    }
  });
});
