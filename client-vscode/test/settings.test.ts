import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import { RESTART_SETTINGS, toInitializationOptions } from '../src/settings';

describe('settings → initializationOptions', () => {
  it('passes contracts and severity through', () => {
    const { options, problems } = toInitializationOptions({
      contracts: ['api/openapi.yaml', 'specs/**/*.dsl.json'],
      severity: { 'unused-endpoint': 'off', 'phantom-api': 'warning' },
    });
    assert.deepEqual(options, {
      contracts: ['api/openapi.yaml', 'specs/**/*.dsl.json'],
      severity: { 'unused-endpoint': 'off', 'phantom-api': 'warning' },
    });
    assert.deepEqual(problems, []);
  });

  it('sends the registry check only from user settings in a trusted workspace', () => {
    assert.deepEqual(toInitializationOptions({ registryCheck: true, trusted: true }).options, { registryCheck: true });
    const untrusted = toInitializationOptions({ registryCheck: true, trusted: false });
    assert.deepEqual(untrusted.options, {});
    assert.deepEqual(untrusted.problems, ['specward.registryCheck is off in an untrusted workspace.']);
    assert.deepEqual(toInitializationOptions({ registryCheck: false, trusted: true }).options, {});
    assert.deepEqual(toInitializationOptions({ registryCheck: 'yes', trusted: true }).problems,
      ['specward.registryCheck must be true or false; ignored.']);
  });

  it('sends nothing for the defaults, so the server keeps discovery and its own configuration', () => {
    assert.deepEqual(toInitializationOptions({ contracts: [], severity: {} }), { options: {}, problems: [] });
    assert.deepEqual(toInitializationOptions({}), { options: {}, problems: [] });
  });

  it('drops invalid entries and says why', () => {
    const { options, problems } = toInitializationOptions({
      contracts: ['a.dsl.json', '', 42, 'a.dsl.json', ' b.yaml '],
      severity: { 'phantom-api': 'fatal', 'Bad Code': 'error', 'method-mismatch': 'hint', x: 3 },
    });
    assert.deepEqual(options, { contracts: ['a.dsl.json', 'b.yaml'], severity: { 'method-mismatch': 'hint' } });
    assert.equal(problems.length, 5);
    assert.match(problems.join('\n'), /specward\.severity\.phantom-api: "fatal" is not one of error, warning, information, hint, off/);
    assert.match(problems.join('\n'), /"Bad Code" is not a diagnostic code/);
  });

  it('rejects settings of the wrong shape', () => {
    const { options, problems } = toInitializationOptions({ contracts: 'openapi.yaml', severity: ['error'] });
    assert.deepEqual(options, {});
    assert.equal(problems.length, 2);
  });

  it('never sends executables or anything else it was given', () => {
    const raw = {
      contracts: ['openapi.yaml'],
      severity: {},
      serverPath: '/opt/specward/bin/specward',
      pythonPath: '/usr/bin/python3',
      apiKey: 'sk-secret',
    };
    const { options } = toInitializationOptions(raw);
    assert.deepEqual(Object.keys(options), ['contracts']);
    const json = JSON.stringify(options);
    assert.ok(!json.includes('/opt/specward') && !json.includes('python') && !json.includes('sk-secret'), json);
  });

  it('is plain JSON (what goes over the wire)', () => {
    const { options } = toInitializationOptions({ contracts: ['x.dsl.json'], severity: { 'file-skipped': 'off' } });
    assert.deepEqual(JSON.parse(JSON.stringify(options)), options);
  });

  it('restarts the server for every setting read only at start', () => {
    assert.deepEqual([...RESTART_SETTINGS].sort(),
      ['specward.contracts', 'specward.pythonPath', 'specward.registryCheck', 'specward.serverPath', 'specward.severity']);
  });
});
