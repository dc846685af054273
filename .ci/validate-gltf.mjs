// Validates .glb/.gltf files with the Khronos glTF-Validator (npm gltf-validator):
//   node .ci/validate-gltf.mjs FILE...
// Prints one line per file (errors, warnings, infos) and every error and warning in
// full; exits 1 when any file has an error or a warning. External resources (a .gltf's .bin, image
// files) are loaded from beside the file. An image the export only names (a texture the
// source file referenced by path, e.g. an M3D map) is not part of the export: when it is
// missing, a 1x1 PNG stands in so the document is still checked, and the file says so.
// A missing buffer stays an error.
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

let failed = 0;
let stoodIn = 0;
for (const file of process.argv.slice(2)) {
  const data = new Uint8Array(await readFile(file));
  const dir = path.dirname(file);
  const report = await validator.validateBytes(data, {
    uri: file,
    maxIssues: 0,
    externalResourceFunction: (uri) =>
      readFile(path.join(dir, decodeURIComponent(uri))).then(
        (b) => new Uint8Array(b),
        (e) => {
          if (e.code !== 'ENOENT' || !IMAGE.test(uri)) throw e;
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
