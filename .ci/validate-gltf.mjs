// Validates .glb/.gltf files with the Khronos glTF-Validator (npm gltf-validator):
//   node .ci/validate-gltf.mjs FILE...
// Prints one line per file (errors, warnings, infos) and every error and warning in
// full; exits 1 when any file has an error. External resources (a .gltf's .bin, image
// files) are loaded from beside the file.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const validator = require('gltf-validator');

let failed = 0;
for (const file of process.argv.slice(2)) {
  const data = new Uint8Array(await readFile(file));
  const dir = path.dirname(file);
  const report = await validator.validateBytes(data, {
    uri: file,
    maxIssues: 0,
    externalResourceFunction: (uri) =>
      readFile(path.join(dir, decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
  });
  const { numErrors, numWarnings, numInfos, messages } = report.issues;
  console.log(`${file}: ${numErrors} errors, ${numWarnings} warnings, ${numInfos} infos`);
  for (const m of messages) {
    if (m.severity <= 1) {
      console.log(`  ${m.severity === 0 ? 'error' : 'warning'} ${m.code} ${m.pointer ?? ''}: ${m.message}`);
    }
  }
  if (numErrors > 0) failed++;
}
if (failed > 0) {
  console.log(`gltf-validator: ${failed} file(s) with errors`);
  process.exit(1);
}
