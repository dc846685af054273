// The reference side of tests/reorder_reference.rs: meshoptimizer's own reorderMesh
// (the npm package's WebAssembly build of meshopt_optimizeVertexCache or
// meshopt_optimizeVertexCacheStrip, then meshopt_optimizeVertexFetchRemap) on each case.
//
// Usage: node reorder_reference.mjs <path of meshoptimizer's index.js> <dir>
// <dir>/cases.txt names one case a line; for each name, <dir>/<name>.in holds the input
// indices (u32, little-endian). For optsize 0 and 1 this writes <name>.ref<optsize>.idx
// (the reordered, remapped indices), <name>.ref<optsize>.remap (remap[old] = new, for
// vertices 0..=max index) and <name>.ref<optsize>.unique (the used vertex count, as text).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [modulePath, dir] = process.argv.slice(2);
const { MeshoptEncoder } = await import(pathToFileURL(modulePath).href);
await MeshoptEncoder.ready;

const names = readFileSync(join(dir, 'cases.txt'), 'utf8').split('\n').filter((n) => n.length > 0);
for (const name of names) {
	const bytes = readFileSync(join(dir, `${name}.in`));
	const input = new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
	for (const optsize of [false, true]) {
		const indices = new Uint32Array(input);
		const [remap, unique] = MeshoptEncoder.reorderMesh(indices, true, optsize);
		const tag = `${name}.ref${optsize ? 1 : 0}`;
		writeFileSync(join(dir, `${tag}.idx`), new Uint8Array(indices.buffer));
		writeFileSync(join(dir, `${tag}.remap`), new Uint8Array(remap.buffer));
		writeFileSync(join(dir, `${tag}.unique`), String(unique));
	}
}
