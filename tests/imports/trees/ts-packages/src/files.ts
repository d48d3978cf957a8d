import fs, { readFileSync, existsSync, constants, type PathLike } from 'node:fs';
import { readFileSynch } from 'fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fileURLToPat } from 'url';
import { readFile, mkdir } from 'node:fs/promises';
import { mkdirs } from 'fs/promises';
import path from 'node:path';
import { join } from 'path';

const here: PathLike = fileURLToPath(new URL('.', 'file:///srv/app/'));
export const loaded = [fs, readFileSync, existsSync(here), constants.F_OK, readFileSynch, pathToFileURL,
  fileURLToPat, readFile, mkdir, mkdirs, path.sep, join];
