import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe as group, it } from 'node:test';

import { CONTRACT_PATTERNS, DETECT_GLOBS, PYPROJECT, SKIPPED_FOLDERS, SKIPPED_GLOB, SOURCE_GLOB } from '../src/constants';
import { describe, detect, eventNeeds, hasSpecwardTable, isConfigName, isContractName, isSourceName, LOOKED_FOR, nothingMessage } from '../src/detect';

const PROJECT_PYPROJECT = `[project]
name = "shop-backend"
version = "1.4.0"
dependencies = ["fastapi>=0.110", "uvicorn"]

[tool.ruff]
line-length = 110
`;

group('detect: is there anything for specward in a folder', () => {
  it('finds a contract by its name, in any folder the server reads', () => {
    assert.deepEqual(detect(['web/src/main.ts', 'contracts/openapi.yaml'], undefined),
      { found: true, why: 'contract', path: 'contracts/openapi.yaml' });
    for (const p of ['api/articles.dsl.json', 'swagger.json', 'docs/api/Orders-OpenAPI.yml', 'spec/petstore.swagger.yaml',
      'services/billing/openapi.v2.json']) {
      const d = detect([p], undefined);
      assert.ok(d.found && d.why === 'contract' && d.path === p, p);
    }
  });

  it('does not take other JSON or YAML files, or lookalike names, for contracts', () => {
    const paths = ['package.json', 'tsconfig.json', '.github/workflows/ci.yml', 'docker-compose.yaml',
      'openapi.ts', 'swagger-ui.js', 'openapi.yaml.bak', 'docs/openapi.md', 'api.dsl.json.orig', 'dsl.json5'];
    assert.deepEqual(detect(paths, undefined), { found: false, notes: [] });
  });

  it('counts a specward.toml anywhere, before any contract', () => {
    assert.deepEqual(detect(['contracts/openapi.yaml', 'backend/specward.toml'], undefined),
      { found: true, why: 'config', path: 'backend/specward.toml' });
    assert.equal(detect(['Specward.toml', 'specward.toml.example'], undefined).found, false);
  });

  it('counts pyproject.toml only with a [tool.specward] table', () => {
    assert.deepEqual(detect([], PROJECT_PYPROJECT), { found: false, notes: ['pyproject.toml has no [tool.specward] table.'] });
    const withTable = `${PROJECT_PYPROJECT}\n[tool.specward]\nbase_paths = ["/api"]\n`;
    assert.deepEqual(detect([], withTable), { found: true, why: 'pyproject', path: 'pyproject.toml' });
    // specward.toml wins (the server reads it instead of pyproject.toml); a table beats a contract
    assert.equal((detect(['specward.toml'], withTable) as { why: string }).why, 'config');
    assert.equal((detect(['openapi.yaml'], withTable) as { why: string }).why, 'pyproject');
    // a pyproject.toml among the paths is not read: only the text passed counts
    assert.equal(detect(['pyproject.toml', 'backend/pyproject.toml'], undefined).found, false);
  });

  it('ignores what is inside the folders the server skips', () => {
    const paths = ['node_modules/swagger-ui-dist/swagger.json', '.venv/lib/python3.12/site-packages/app/openapi.json',
      'dist/openapi.yaml', 'web/node_modules/some-sdk/specward.toml', 'build\\api\\articles.dsl.json'];
    assert.deepEqual(detect(paths, undefined), { found: false, notes: [] });
    // a folder named like a skipped one only counts as a folder: a file may have that name
    assert.equal(detect(['api/dist.openapi.json'], undefined).found, true);
    assert.deepEqual(detect([...paths, 'api/v1/openapi.json'], undefined), { found: true, why: 'contract', path: 'api/v1/openapi.json' });
  });

  it('picks the same file whatever the order, the shallowest first', () => {
    const paths = ['z/openapi.yaml', 'a/b/openapi.yaml', 'b/swagger.json', 'a/articles.dsl.json'];
    const first = detect(paths, undefined);
    assert.deepEqual(first, { found: true, why: 'contract', path: 'a/articles.dsl.json' });
    assert.deepEqual(detect([...paths].reverse(), undefined), first);
  });

  it('accepts Windows separators and ./', () => {
    assert.deepEqual(detect(['.\\contracts\\openapi.yaml'], undefined), { found: true, why: 'contract', path: 'contracts/openapi.yaml' });
  });

  it('says what it found', () => {
    assert.equal(describe({ found: true, why: 'contract', path: 'contracts/openapi.yaml' }), 'contracts/openapi.yaml (a contract, by its name)');
    assert.equal(describe({ found: true, why: 'pyproject', path: 'pyproject.toml' }), 'pyproject.toml (its [tool.specward] table)');
    assert.equal(describe({ found: true, why: 'config', path: 'specward.toml' }), "specward.toml (specward's configuration)");
  });

  it('says what it looked for, and the notes per folder when there are several', () => {
    const one = nothingMessage([{ name: 'shop', notes: ['pyproject.toml has no [tool.specward] table.'] }]);
    assert.ok(one.includes(LOOKED_FOR));
    for (const word of ['specward.toml', '[tool.specward]', '*.dsl.json', 'openapi', 'swagger', 'node_modules', 'Restart Server']) {
      assert.ok(one.includes(word), word);
    }
    assert.match(one, /^pyproject\.toml has no \[tool\.specward\] table\.$/m);
    const two = nothingMessage([{ name: 'web', notes: [] }, { name: 'api', notes: ['pyproject.toml has no [tool.specward] table.'] }]);
    assert.match(two, /^api: pyproject\.toml has no/m);
  });
});

group('isSourceName: the files whose imports are checked without a contract', () => {
  it('knows the languages SOURCE_GLOB finds, and nothing else', () => {
    const exts = /\{(.*)\}/.exec(SOURCE_GLOB)![1].split(',');
    for (const e of exts) {
      assert.ok(isSourceName(`src/a.${e}`), e);
    }
    for (const p of ['README.md', 'openapi.yaml', 'package.json', 'styles.css', 'a.tsx.bak']) {
      assert.ok(!isSourceName(p), p);
    }
  });
});

group('eventNeeds: which file events make the extension look again', () => {
  it('looks again for a file that counts by its name, created or changed', () => {
    for (const p of ['api/openapi.yaml', 'specward.toml', 'contracts/articles.dsl.json', 'Swagger.json']) {
      assert.equal(eventNeeds(p, 'created'), 'look', p);
      assert.equal(eventNeeds(p, 'changed'), 'look', p);
    }
  });

  it('looks again when the root pyproject.toml appears or changes (it may have gained the table), not another one', () => {
    assert.equal(eventNeeds('pyproject.toml', 'changed'), 'look');
    assert.equal(eventNeeds('pyproject.toml', 'created'), 'look');
    assert.equal(eventNeeds('backend/pyproject.toml', 'changed'), 'ignore');
  });

  it('asks whether anything else created is a folder, and ignores other changes', () => {
    assert.equal(eventNeeds('api', 'created'), 'ifFolder');
    assert.equal(eventNeeds('web/src/orders.ts', 'created'), 'look'); // a source file: the import checks
    assert.equal(eventNeeds('docs/notes.txt', 'created'), 'ifFolder');
    assert.equal(eventNeeds('node_modules/x/index.ts', 'created'), 'ignore');
    assert.equal(eventNeeds('web/src/orders.ts', 'changed'), 'ignore');
    assert.equal(eventNeeds('package.json', 'changed'), 'ignore');
  });

  it('ignores the skipped folders and everything in them', () => {
    for (const p of ['node_modules', 'node_modules/swagger-ui-dist/swagger.json', 'web/dist/openapi.json', '.venv', '.git/HEAD']) {
      assert.equal(eventNeeds(p, 'created'), 'ignore', p);
    }
  });
});

group('hasSpecwardTable', () => {
  const yes = {
    table: '[tool.specward]\n',
    'sub-table only': '[tool.specward.severity]\nunused-endpoint = "off"\n',
    'spaces and a comment': '  [ tool . specward ]   # specward settings\n',
    'quoted keys': '[tool."specward"]\ncache = false\n',
    'dotted key under [tool]': '[tool]\nspecward.cache = false\n',
    'inline table under [tool]': '[tool]\nspecward = { base_paths = ["/api"] }\n',
    'dotted key at the top': 'tool.specward.respect_gitignore = false\n[project]\nname = "x"\n',
    'after other tables, CRLF': '[project]\r\nname = "x"\r\n\r\n[tool.black]\r\nline-length = 100\r\n[tool.specward]\r\n',
    'a byte-order mark': '\uFEFF[tool.specward]\n',
  };
  for (const [what, text] of Object.entries(yes)) {
    it(`finds it: ${what}`, () => assert.equal(hasSpecwardTable(text), true));
  }

  const no = {
    'no tool tables': PROJECT_PYPROJECT,
    'another tool': '[tool.specwardish]\nx = 1\n[tool.pytest.ini_options]\n',
    'other case': '[tool.Specward]\n',
    'commented out': '# [tool.specward]\n#tool.specward.cache = false\n',
    'a key named specward elsewhere': '[project.urls]\nspecward = "https://example.org"\n[tool.ruff]\nspecward = 1\n',
    'inside a multi-line string': '[project]\ndescription = """\nConfigure it with\n[tool.specward]\n"""\n',
    'inside a literal multi-line string': "[project]\nreadme = '''\ntool.specward.cache = false\n'''\n",
    empty: '',
  };
  for (const [what, text] of Object.entries(no)) {
    it(`does not find it: ${what}`, () => assert.equal(hasSpecwardTable(text), false));
  }

  it('reads on after a multi-line string closes', () => {
    assert.equal(hasSpecwardTable('[project]\ndescription = """\nline\n"""\n[tool.specward]\n'), true);
    assert.equal(hasSpecwardTable('[project]\ndescription = """one line"""\n[tool.specward]\n'), true);
  });
});

group('the globs and detect() agree', () => {
  // Node's own glob matcher (minimatch semantics), independent of detect.ts
  const matchesGlob = (path as unknown as { matchesGlob?: (p: string, g: string) => boolean }).matchesGlob;
  const names = ['openapi.yaml', 'openapi.yml', 'openapi.json', 'swagger.yaml', 'swagger.json', 'Swagger.json',
    'OpenAPI.yaml', 'orders-openapi.json', 'petstore.swagger.yml', 'articles.dsl.json', 'specward.toml',
    'openapi.ts', 'openapi.yaml.bak', 'swagger-ui.js', 'package.json', 'Specward.toml', 'specward.toml.example',
    'config.yaml', 'openapi.JSON', 'dsl.json', 'x.dsl.json5'];

  it('a name matches a glob exactly when detect() takes it (at the root and in a subfolder)', { skip: !matchesGlob && 'needs path.matchesGlob (Node 20.17+)' }, () => {
    const globs = DETECT_GLOBS.filter((g) => g !== PYPROJECT);
    for (const name of names) {
      for (const p of [name, `api/v1/${name}`]) {
        const byGlob = globs.some((g) => matchesGlob!(p, g));
        const byDetect = isConfigName(name) || isContractName(name);
        assert.equal(byGlob, byDetect, `${p}: glob says ${byGlob}, detect says ${byDetect}`);
        assert.equal(detect([p], undefined).found, byDetect, p);
      }
    }
  });

  it('the exclude glob covers every skipped folder, at any depth', { skip: !matchesGlob && 'needs path.matchesGlob (Node 20.17+)' }, () => {
    for (const folder of SKIPPED_FOLDERS) {
      assert.ok(matchesGlob!(`${folder}/x/openapi.json`, SKIPPED_GLOB), folder);
      assert.ok(matchesGlob!(`web/${folder}/openapi.json`, SKIPPED_GLOB), folder);
    }
    assert.ok(!matchesGlob!('api/openapi.json', SKIPPED_GLOB));
  });

  it('sends the contract files to the server whatever their language', () => {
    assert.deepEqual([...CONTRACT_PATTERNS], DETECT_GLOBS.slice(1, -1));
    assert.deepEqual([DETECT_GLOBS[0], DETECT_GLOBS.at(-1)], ['**/specward.toml', 'pyproject.toml']);
  });
});
