// Validates .glb/.gltf files with the Khronos glTF-Validator (npm gltf-validator):
//   node .ci/validate-gltf.mjs FILE...
// Prints one line per file (errors, warnings, infos) and every error and warning in
// full; exits 1 when any file has an error or a warning. External resources (a .gltf's .bin, image
// files) are loaded from beside the file. An image the export only names (a texture the
// source file referenced by path, e.g. an M3D map) is not part of the export: when it is
// missing, a 1x1 PNG stands in so the document is still checked, and the file says so.
// A missing buffer stays an error; an image is known by the document's images, or by its
// extension.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const validator = require('gltf-validator');

// The smallest valid PNG: 1x1, RGBA, one white pixel.
const STAND_IN = Uint8Array.from(Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==',
  'base64'));
const IMAGE = /\.(png|jpe?g|webp|ktx2)$/i;

// The URIs the document's images name (a texture name without an image extension, such
// as an M3D texture written as its file name alone, is still an image).
function imageUris(data) {
  let json = data;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.length >= 20 && view.getUint32(0, true) === 0x46546c67) {
    json = data.subarray(20, 20 + view.getUint32(12, true));
  }
  try {
    const doc = JSON.parse(new TextDecoder().decode(json));
    return new Set((doc.images ?? []).map((i) => i.uri).filter((u) => typeof u === 'string'));
  } catch {
    return new Set();
  }
}

let failed = 0;
let stoodIn = 0;
for (const file of process.argv.slice(2)) {
  const data = new Uint8Array(await readFile(file));
  const dir = path.dirname(file);
  const images = imageUris(data);
  const report = await validator.validateBytes(data, {
    uri: file,
    maxIssues: 0,
    externalResourceFunction: (uri) =>
      readFile(path.join(dir, decodeURIComponent(uri))).then(
        (b) => new Uint8Array(b),
        (e) => {
          if (e.code !== 'ENOENT' || !(IMAGE.test(uri) || images.has(uri))) throw e;
          console.log(`  note: ${file} names image '${uri}', not exported beside it: a 1x1 PNG stands in`);
          stoodIn++;
          return STAND_IN;
        }),
  });
  const { numErrors, numWarnings, numInfos, messages } = report.issues;
  console.log(`${file}: ${numErrors} errors, ${numWarnings} warnings, ${numInfos} infos`);
  for (const m of messages) {
    if (m.severity <= 1) {
      console.log(`  ${m.severity === 0 ? 'error' : 'warning'} ${m.code} ${m.pointer ?? ''}: ${m.message}`);
    }
  }
  if (numErrors > 0 || numWarnings > 0) failed++;
}
if (stoodIn > 0) {
  console.log(`gltf-validator: ${stoodIn} external image(s) named but not exported, checked with a stand-in`);
}
if (failed > 0) {
  console.log(`gltf-validator: ${failed} file(s) with errors or warnings`);
  process.exit(1);
}
