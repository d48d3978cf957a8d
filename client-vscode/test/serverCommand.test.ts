import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import {
  type DiscoveryInput,
  type Found,
  type NotFound,
  PYTHON_SERVE_ARGS,
  type Resolution,
  resolveServerCommand,
  SERVE_ARGS,
} from '../src/serverCommand';

/** A `which` that knows exactly these names and paths. */
function fakeWhich(known: Record<string, string>) {
  const asked: string[] = [];
  const which = (name: string) => {
    asked.push(name);
    return known[name];
  };
  return { which, asked };
}

function base(overrides: Partial<DiscoveryInput> = {}): DiscoveryInput {
  return { trusted: true, which: () => undefined, ...overrides };
}

function expectFound(r: Resolution): Found {
  assert.equal(r.found, true, `expected a command, got: ${(r as NotFound).message}`);
  return r as Found;
}

function expectNotFound(r: Resolution): NotFound {
  assert.equal(r.found, false, `expected "not found", got: ${(r as Found).description}`);
  return r as NotFound;
}

const EVERYTHING = {
  '/opt/specward/bin/specward': '/opt/specward/bin/specward',
  '/opt/py/bin/python': '/opt/py/bin/python',
  specward: '/usr/local/bin/specward',
  '/home/u/.venv/bin/python': '/home/u/.venv/bin/python',
};

describe('server discovery order', () => {
  it('uses specward.serverPath first, run as `<path> serve`', async () => {
    const r = expectFound(await resolveServerCommand(base({
      serverPath: { globalValue: '/opt/specward/bin/specward' },
      pythonPath: { globalValue: '/opt/py/bin/python' },
      which: fakeWhich(EVERYTHING).which,
      pythonExtensionInterpreter: () => '/home/u/.venv/bin/python',
    })));
    assert.equal(r.source, 'serverPath');
    assert.equal(r.command, '/opt/specward/bin/specward');
    assert.deepEqual(r.args, ['serve']);
  });

  it('then specward.pythonPath, run as `python -m specward.server serve`', async () => {
    const r = expectFound(await resolveServerCommand(base({
      pythonPath: { globalValue: '/opt/py/bin/python' },
      which: fakeWhich(EVERYTHING).which,
      pythonExtensionInterpreter: () => '/home/u/.venv/bin/python',
    })));
    assert.equal(r.source, 'pythonPath');
    assert.equal(r.command, '/opt/py/bin/python');
    assert.deepEqual(r.args, ['-m', 'specward.server', 'serve']);
  });

  it('then `specward` on PATH', async () => {
    const r = expectFound(await resolveServerCommand(base({
      which: fakeWhich(EVERYTHING).which,
      pythonExtensionInterpreter: () => '/home/u/.venv/bin/python',
    })));
    assert.equal(r.source, 'path');
    assert.equal(r.command, '/usr/local/bin/specward');
    assert.deepEqual(r.args, SERVE_ARGS);
  });

  it("then the Python extension's interpreter with -m specward.server serve", async () => {
    const { specward: _onPath, ...noPath } = EVERYTHING;
    const r = expectFound(await resolveServerCommand(base({
      which: fakeWhich(noPath).which,
      pythonExtensionInterpreter: async () => '/home/u/.venv/bin/python',
    })));
    assert.equal(r.source, 'pythonExtension');
    assert.equal(r.command, '/home/u/.venv/bin/python');
    assert.deepEqual(r.args, PYTHON_SERVE_ARGS);
  });

  it('asks the Python extension only when nothing before it was found', async () => {
    let asked = 0;
    const r = expectFound(await resolveServerCommand(base({
      which: fakeWhich(EVERYTHING).which,
      pythonExtensionInterpreter: () => { asked++; return '/home/u/.venv/bin/python'; },
    })));
    assert.equal(r.source, 'path');
    assert.equal(asked, 0);
  });

  it('treats empty and blank settings as unset', async () => {
    const r = expectFound(await resolveServerCommand(base({
      serverPath: { globalValue: '', workspaceValue: '   ' },
      pythonPath: { globalValue: '' },
      which: fakeWhich(EVERYTHING).which,
    })));
    assert.equal(r.source, 'path');
  });

  it('does not fall back when specward.serverPath is set but wrong', async () => {
    const r = expectNotFound(await resolveServerCommand(base({
      serverPath: { globalValue: '/nowhere/specward' },
      which: fakeWhich(EVERYTHING).which,
    })));
    assert.match(r.message, /specward\.serverPath is set to "\/nowhere\/specward"/);
    assert.match(r.message, /pip install "git\+https:\/\/github\.com\/specward\/specward"/);
  });

  it('does not fall back when specward.pythonPath is set but wrong', async () => {
    const r = expectNotFound(await resolveServerCommand(base({
      pythonPath: { globalValue: '/nowhere/python' },
      which: fakeWhich(EVERYTHING).which,
    })));
    assert.match(r.message, /specward\.pythonPath is set to "\/nowhere\/python"/);
  });

  it('says how to install into specward.pythonPath when specward is missing there', async () => {
    const r = expectNotFound(await resolveServerCommand(base({
      pythonPath: { globalValue: '/opt/py/bin/python' },
      which: fakeWhich(EVERYTHING).which,
      hasSpecward: (py) => py !== '/opt/py/bin/python',
    })));
    assert.match(r.message, /"\/opt\/py\/bin\/python" -m pip install "git\+https:\/\/github\.com\/specward\/specward"/);
  });

  it("skips the Python extension's interpreter when specward is not installed in it", async () => {
    const r = expectNotFound(await resolveServerCommand(base({
      which: fakeWhich({ '/home/u/.venv/bin/python': '/home/u/.venv/bin/python' }).which,
      pythonExtensionInterpreter: () => '/home/u/.venv/bin/python',
      hasSpecward: async () => false,
    })));
    assert.match(r.message, /the language server was not found/);
    assert.match(r.message, /\/home\/u\/\.venv\/bin\/python.*does not have specward installed/);
  });
});

describe('the not-found message', () => {
  it('says exactly what to install and which setting to set', async () => {
    const r = expectNotFound(await resolveServerCommand(base()));
    assert.match(r.message, /^specward: the language server was not found\./);
    assert.match(r.message, /`pip install "git\+https:\/\/github\.com\/specward\/specward"`/);
    assert.match(r.message, /`specward\.serverPath`/);
    assert.match(r.message, /`specward\.pythonPath`/);
    assert.deepEqual(r.notes, []);
  });

  it('looks up `specward` on PATH by its bare name', async () => {
    const { which, asked } = fakeWhich({});
    await resolveServerCommand(base({ which }));
    assert.deepEqual(asked, ['specward']);
  });
});

describe('untrusted workspaces', () => {
  it('ignores workspace and folder values of serverPath and uses the user value', async () => {
    const r = expectFound(await resolveServerCommand(base({
      trusted: false,
      serverPath: {
        globalValue: '/opt/specward/bin/specward',
        workspaceValue: './evil/specward',
        workspaceFolderValue: '/repo/evil/specward',
      },
      which: fakeWhich({ ...EVERYTHING, './evil/specward': '/repo/evil/specward', '/repo/evil/specward': '/repo/evil/specward' }).which,
    })));
    assert.equal(r.command, '/opt/specward/bin/specward');
    assert.equal(r.notes.length, 2);
    assert.match(r.notes.join('\n'), /Ignored the workspace value of specward\.serverPath \("\.\/evil\/specward"\)/);
    assert.match(r.notes.join('\n'), /Ignored the workspace folder value of specward\.serverPath/);
  });

  it('with only workspace values, falls through to PATH and never runs them', async () => {
    const { which, asked } = fakeWhich({ ...EVERYTHING, '/repo/bin/specward': '/repo/bin/specward', '/repo/.venv/bin/python': '/repo/.venv/bin/python' });
    const r = expectFound(await resolveServerCommand(base({
      trusted: false,
      serverPath: { workspaceValue: '/repo/bin/specward' },
      pythonPath: { workspaceFolderValue: '/repo/.venv/bin/python' },
      which,
    })));
    assert.equal(r.source, 'path');
    assert.ok(!asked.includes('/repo/bin/specward'));
    assert.ok(!asked.includes('/repo/.venv/bin/python'));
    assert.match(r.notes.join('\n'), /specward\.serverPath/);
    assert.match(r.notes.join('\n'), /specward\.pythonPath/);
  });

  it('ignores workspace values of pythonPath too', async () => {
    const r = expectFound(await resolveServerCommand(base({
      trusted: false,
      pythonPath: { globalValue: '/opt/py/bin/python', workspaceValue: '/repo/.venv/bin/python' },
      which: fakeWhich({ ...EVERYTHING, '/repo/.venv/bin/python': '/repo/.venv/bin/python' }).which,
    })));
    assert.equal(r.source, 'pythonPath');
    assert.equal(r.command, '/opt/py/bin/python');
  });

  it("does not use (or ask for) the Python extension's interpreter", async () => {
    let asked = 0;
    const r = expectNotFound(await resolveServerCommand(base({
      trusted: false,
      which: fakeWhich({ '/repo/.venv/bin/python': '/repo/.venv/bin/python' }).which,
      pythonExtensionInterpreter: () => { asked++; return '/repo/.venv/bin/python'; },
    })));
    assert.equal(asked, 0);
    assert.match(r.message, /pip install "git\+https:\/\/github\.com\/specward\/specward"/);
    assert.match(r.message, /not trusted/);
  });

  it('in a trusted workspace, folder beats workspace beats user', async () => {
    const known = { '/a': '/a', '/b': '/b', '/c': '/c' };
    const pick = async (serverPath: DiscoveryInput['serverPath']) =>
      expectFound(await resolveServerCommand(base({ serverPath, which: fakeWhich(known).which }))).command;
    assert.equal(await pick({ globalValue: '/a', workspaceValue: '/b', workspaceFolderValue: '/c' }), '/c');
    assert.equal(await pick({ globalValue: '/a', workspaceValue: '/b' }), '/b');
    assert.equal(await pick({ globalValue: '/a' }), '/a');
  });
});
