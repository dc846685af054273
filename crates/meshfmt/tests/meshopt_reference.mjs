// Decodes every EXT_meshopt_compression view of the .glb files named with the reference
// decoder (npm meshoptimizer), writing each file's decoded views, concatenated in view
// order, to FILE.decoded:
//   node meshopt_reference.mjs MODULE_DIR FILE.glb...
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [moduleDir, ...files] = process.argv.slice(2);
const { MeshoptDecoder } = await import(pathToFileURL(path.join(moduleDir, 'index.js')).href);
await MeshoptDecoder.ready;

for (const file of files) {
  const glb = new Uint8Array(await readFile(file));
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const jsonLen = view.getUint32(12, true);
  const doc = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + jsonLen)));
  const binAt = 20 + jsonLen;
  const bin = glb.subarray(binAt + 8, binAt + 8 + view.getUint32(binAt, true));
  const out = [];
  for (const v of doc.bufferViews ?? []) {
    const ext = v.extensions?.EXT_meshopt_compression;
    if (!ext) continue;
    if (ext.buffer !== 0) throw new Error(`${file}: compressed data outside the GLB buffer`);
    const source = bin.subarray(ext.byteOffset ?? 0, (ext.byteOffset ?? 0) + ext.byteLength);
    const target = new Uint8Array(ext.count * ext.byteStride);
    MeshoptDecoder.decodeGltfBuffer(target, ext.count, ext.byteStride, source, ext.mode, ext.filter ?? 'NONE');
    out.push(target);
  }
  const total = out.reduce((n, a) => n + a.length, 0);
  const all = new Uint8Array(total);
  let at = 0;
  for (const a of out) {
    all.set(a, at);
    at += a.length;
  }
  await writeFile(`${file}.decoded`, all);
  console.log(`${file}: ${out.length} views, ${total} bytes decoded`);
}
