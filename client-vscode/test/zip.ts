// Reads the entries of a zip file (a .vsix is one): enough of the format for the tests,
// stored and deflated entries, no zip64.
import * as zlib from 'node:zlib';

export interface ZipEntry {
  name: string;
  size: number;
  data: () => Buffer;
}

export function readZip(buf: Buffer): ZipEntry[] {
  // the end-of-central-directory record: the last PK\5\6 (a comment may follow it)
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) {
    throw new Error('not a zip file: no end-of-central-directory record');
  }
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) {
      throw new Error(`bad central directory entry at ${p}`);
    }
    const method = buf.readUInt16LE(p + 10);
    const compressed = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLength = buf.readUInt16LE(p + 28);
    const extraLength = buf.readUInt16LE(p + 30);
    const commentLength = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLength);
    p += 46 + nameLength + extraLength + commentLength;
    entries.push({
      name,
      size,
      data: () => {
        if (buf.readUInt32LE(local) !== 0x04034b50) {
          throw new Error(`bad local header for ${name}`);
        }
        const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
        const raw = buf.subarray(start, start + compressed);
        if (method === 0) {
          return Buffer.from(raw);
        }
        if (method === 8) {
          return zlib.inflateRawSync(raw);
        }
        throw new Error(`${name}: compression method ${method} is not supported here`);
      },
    });
  }
  return entries;
}
