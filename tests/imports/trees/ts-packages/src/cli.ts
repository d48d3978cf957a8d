import parseFlags from 'cjs-lib';
import { strict } from 'cjs-lib';
import { slugify, kebab } from 'plain-js';
import { anything, whatever } from 'untyped-only';
import { nothing } from 'untyped-only/lib/missing';

export const flags = parseFlags(process.argv);
export const slug = slugify('Hello World') + String(kebab) + String(strict);
export const values = [anything, whatever, nothing];
