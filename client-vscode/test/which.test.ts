import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { makeWhich } from '../src/which';

const posix = process.platform !== 'win32';

describe('which', { skip: !posix && 'POSIX permissions' }, () => {
  let root: string;
  let bin1: string;
  let bin2: string;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'specward-which-'));
    bin1 = path.join(root, 'bin1');
    bin2 = path.join(root, 'bin2');
    fs.mkdirSync(bin1);
    fs.mkdirSync(bin2);
    fs.writeFileSync(path.join(bin1, 'specward'), 'not executable');
    fs.writeFileSync(path.join(bin2, 'specward'), '#!/bin/sh\n', { mode: 0o755 });
    fs.mkdirSync(path.join(bin1, 'python3')); // a folder is not a program
    fs.writeFileSync(path.join(bin2, 'python3'), '#!/bin/sh\n', { mode: 0o755 });
  });

  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('finds the first executable file on PATH', () => {
    const which = makeWhich({ env: { PATH: [bin1, bin2].join(path.delimiter) } });
    assert.equal(which('specward'), path.join(bin2, 'specward'));
    assert.equal(which('python3'), path.join(bin2, 'python3'));
    assert.equal(which('nothing-here'), undefined);
  });

  it('skips relative PATH entries, which would resolve in the current (workspace) folder', () => {
    const cwd = process.cwd();
    try {
      process.chdir(root);
      const which = makeWhich({ env: { PATH: ['bin2', '', '.'].join(path.delimiter) } });
      assert.equal(which('specward'), undefined);
    } finally {
      process.chdir(cwd);
    }
  });

  it('checks an absolute path, and refuses a relative one', () => {
    const which = makeWhich({ env: { PATH: '' } });
    assert.equal(which(path.join(bin2, 'specward')), path.join(bin2, 'specward'));
    assert.equal(which(path.join(bin1, 'specward')), undefined);
    assert.equal(which('./bin2/specward'), undefined);
    assert.equal(which(''), undefined);
  });

  it('expands ~', () => {
    const which = makeWhich({ env: { PATH: '' }, homedir: root });
    assert.equal(which('~/bin2/specward'), path.join(bin2, 'specward'));
  });
});
