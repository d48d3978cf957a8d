import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import {
  contractArguments, contractEndpoints, contractFileArguments, DISCUSS, discussArguments, GENERATE_CONTRACT, GENERATE_SPEC,
  IMPLEMENT_ENDPOINT, GENERATE_SLICE, isContractFile, LAST_SCORE_NOTIFICATION, MAX_REQUEST_CHARS, parseLastScore,
  RESUME_RUN, scoreView, sliceArguments, specArguments, UPDATE_AFFECTED, validateRequest,
} from '../src/stages';

// compiled to out/test/*.test.js: the repository is three folders up
const REPO = path.resolve(__dirname, '..', '..', '..');

describe('the stage commands', () => {
  it('sends the request as typed, its blanks folded, and refuses an empty or huge one', () => {
    assert.equal(validateRequest('Let users write notes'), undefined);
    assert.match(validateRequest('   ')!, /feature request/);
    assert.match(validateRequest('x'.repeat(MAX_REQUEST_CHARS + 1))!, /At most/);
    assert.deepEqual(specArguments('  Let users\n write   notes '), ['Let users write notes']);
  });

  it('generates a contract only from specs/<slug>.md at a folder root', () => {
    assert.deepEqual(contractArguments('specs/user-login.md'), { args: [{ spec: 'specs/user-login.md' }] });
    for (const rel of ['docs/notes.md', 'specs/Notes Draft.md', 'specs/a/notes.md', 'specs/notes.dsl.json', 'specs/-x.md']) {
      const got = contractArguments(rel);
      assert.ok('message' in got && got.message.includes(`${rel} is not a spec`), rel);
    }
    const none = contractArguments(undefined);
    assert.ok('message' in none && /open a spec/.test(none.message));
  });

  it('names the commands and the notification the server registers (server/lsp)', () => {
    const handler = fs.readFileSync(path.join(REPO, 'server', 'lsp', 'handlers', 'stage_command.py'), 'utf8');
    assert.ok(handler.includes(`GENERATE_SPEC = "${GENERATE_SPEC}"`));
    assert.ok(handler.includes(`GENERATE_CONTRACT = "${GENERATE_CONTRACT}"`));
    const more = fs.readFileSync(path.join(REPO, 'server', 'lsp', 'handlers', 'stage_more.py'), 'utf8');
    assert.ok(more.includes(`DISCUSS = "${DISCUSS}"`));
    assert.ok(more.includes(`UPDATE_AFFECTED = "${UPDATE_AFFECTED}"`));
    assert.ok(more.includes(`RESUME_RUN = "${RESUME_RUN}"`));
    // the slice's commands (server/lsp/handlers/slice_command.py), when that module is there
    const slice = path.join(REPO, 'server', 'lsp', 'handlers', 'slice_command.py');
    if (fs.existsSync(slice)) {
      const text = fs.readFileSync(slice, 'utf8');
      assert.ok(text.includes(`"${GENERATE_SLICE}"`) && text.includes(`"${IMPLEMENT_ENDPOINT}"`));
    }
    const score = fs.readFileSync(path.join(REPO, 'server', 'lsp', 'last_score.py'), 'utf8');
    assert.ok(score.includes(`LAST_SCORE_NOTIFICATION = "${LAST_SCORE_NOTIFICATION}"`));
  });
});

describe('discuss, slice, update and resume', () => {
  it('discusses a spec, as "Generate contract" takes one', () => {
    assert.deepEqual(discussArguments('specs/user-login.md'), { args: [{ spec: 'specs/user-login.md' }] });
    const got = discussArguments('specs/notes.dsl.json');
    assert.ok('message' in got && /is not a spec/.test(got.message));
  });

  it('generates a slice or updates code only from a contract', () => {
    for (const rel of ['specs/notes.dsl.json', 'api/openapi.yaml', 'api/Orders-OpenAPI.yml', 'swagger.json']) {
      assert.ok(isContractFile(rel), rel);
      assert.deepEqual(contractFileArguments(rel), { contract: rel });
    }
    for (const rel of ['specs/notes.md', 'package.json', 'web/swagger-ui.js', 'specward.toml']) {
      const got = contractFileArguments(rel);
      assert.ok('message' in got && got.message.includes(`${rel} is not a contract`), rel);
    }
    const none = contractFileArguments(undefined);
    assert.ok('message' in none && /open a contract/.test(none.message));
  });

  it('lists a contract\'s endpoints for the quick pick, SpecDSL and OpenAPI JSON', () => {
    const dsl = JSON.stringify({ version: '1.0', endpoints: [{ method: 'get', path: '/api/notes' },
      { method: 'POST', path: '/api/notes' }, { method: 'FETCH', path: '/x' }, { path: '/y' }, null] });
    assert.deepEqual(contractEndpoints(dsl), ['GET /api/notes', 'POST /api/notes']);
    const openapi = JSON.stringify({ openapi: '3.1.0', paths: { '/api/tags': { get: {}, parameters: [] }, '/api/tags/{id}': { delete: {} } } });
    assert.deepEqual(contractEndpoints(openapi), ['GET /api/tags', 'DELETE /api/tags/{id}']);
    for (const bad of ['openapi: 3.1.0\npaths: {}\n', '', '42', 'null', '{"endpoints": 3}']) {
      assert.deepEqual(contractEndpoints(bad), [], bad);
    }
  });

  it('sends the endpoints picked, or the whole contract when none or all were', () => {
    const all = ['GET /api/notes', 'POST /api/notes'];
    assert.deepEqual(sliceArguments('specs/notes.dsl.json', [], all), [{ contract: 'specs/notes.dsl.json' }]);
    assert.deepEqual(sliceArguments('specs/notes.dsl.json', all, all), [{ contract: 'specs/notes.dsl.json' }]);
    assert.deepEqual(sliceArguments('specs/notes.dsl.json', ['POST /api/notes', 'GET /nope'], all),
      [{ contract: 'specs/notes.dsl.json', endpoints: ['POST /api/notes'] }]);
  });
});

describe('the last-score item', () => {
  it('shows "specward 8.8 PASS" and hides on null', () => {
    const s = parseLastScore({ runId: '20261203T101500Z-a1b2c3', score: 8.8, verdict: 'PASS' });
    assert.deepEqual(s, { runId: '20261203T101500Z-a1b2c3', score: 8.8, verdict: 'PASS' });
    const v = scoreView(s!);
    assert.equal(v!.text, 'specward 8.8 PASS');
    assert.match(v!.tooltip, /20261203T101500Z-a1b2c3\): 8\.80 \/ 10, PASS/);
    assert.equal(scoreView({ runId: 'r', score: 4.05, verdict: 'FAIL' })!.text, 'specward 4.0 FAIL'.replace('4.0', (4.05).toFixed(1)));
    assert.equal(scoreView({ runId: 'r', score: 7, verdict: null })!.text, 'specward 7.0');
    assert.equal(parseLastScore(null), null);
    assert.equal(scoreView(null), undefined);
  });

  it('rejects malformed params (undefined: the item stays as it was)', () => {
    for (const bad of ['8.8', 42, { score: 8.8 }, { runId: 'r', score: 'high' }, { runId: 'r', score: NaN },
      { runId: 'r', score: 1, verdict: 'MAYBE' }]) {
      assert.equal(parseLastScore(bad), undefined, JSON.stringify(bad));
    }
    assert.deepEqual(parseLastScore({ runId: 'r', score: 1 }), { runId: 'r', score: 1, verdict: null });
  });
});
