// The reference side of crates/meshopt/tests/reference.rs: meshoptimizer's own
// JavaScript/WebAssembly encoder and decoder (npm meshoptimizer, .ci/node_modules).
//
//   node tests/reference.mjs DIR
//
// DIR/manifest.txt lists the cases the Rust test wrote, one a line:
//   vertex NAME COUNT STRIDE
//   index|sequence NAME COUNT SIZE
//   oct|quat NAME COUNT STRIDE BITS
//   exp NAME COUNT STRIDE BITS MODE
// with DIR/NAME.in (input bytes) or DIR/NAME.f32 (filter input floats), DIR/NAME.ours
// (our encoding), DIR/NAME.ourdec (our decoding, index and filter cases) and
// DIR/NAME.oursv (filter cases: our vertex encoding of our filtered bytes).
//
// For each case it decodes our encoding with the reference decoder and checks the bytes
// (vertex: equal to the input; index: equal to our decoding and to the input up to the
// rotation of each triangle; sequence: equal to our decoding; filters: equal to our
// filter decoding), and writes the reference encoder's output for the same input to
// DIR/NAME.ref (vertex: also DIR/NAME.ref1, version 1 at level 3, for our decoder to
// read). DIR/results.txt gets "NAME ok" or "NAME FAIL why" per case.

import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const moduleDir = process.env.MESHOPT_MODULE || resolve(here, '../../../.ci/node_modules/meshoptimizer');
const { MeshoptEncoder, MeshoptDecoder } = await import(pathToFileURL(join(moduleDir, 'index.js')).href);

await MeshoptEncoder.ready;
await MeshoptDecoder.ready;

const dir = process.argv[2];
if (!dir) {
	console.error('usage: node reference.mjs DIR');
	process.exit(2);
}

// a fresh, aligned copy (the module views the buffer as 16/32-bit arrays)
const read = (name) => new Uint8Array(readFileSync(join(dir, name)));
const write = (name, bytes) => writeFileSync(join(dir, name), bytes);

function same(a, b) {
	if (a.length !== b.length) return `length ${a.length} vs ${b.length}`;
	for (let i = 0; i < a.length; ++i) {
		if (a[i] !== b[i]) return `byte ${i}: ${a[i]} vs ${b[i]}`;
	}
	return null;
}

function indexValues(bytes, size) {
	const copy = new Uint8Array(bytes);
	return size === 2 ? new Uint16Array(copy.buffer) : new Uint32Array(copy.buffer);
}

// each triangle as its lexicographically smallest rotation (same winding)
function canonical(values) {
	const out = [];
	for (let i = 0; i + 2 < values.length; i += 3) {
		const t = [values[i], values[i + 1], values[i + 2]];
		const rotations = [0, 1, 2].map((r) => [t[r], t[(r + 1) % 3], t[(r + 2) % 3]]);
		rotations.sort((p, q) => p[0] - q[0] || p[1] - q[1] || p[2] - q[2]);
		out.push(...rotations[0]);
	}
	return out;
}

const filters = { oct: 'OCTAHEDRAL', quat: 'QUATERNION', exp: 'EXPONENTIAL' };

function run(kind, name, args) {
	const [count, stride] = args.slice(0, 2).map(Number);
	if (kind === 'vertex') {
		const input = read(`${name}.in`);
		const ours = read(`${name}.ours`);
		const dec = new Uint8Array(count * stride);
		MeshoptDecoder.decodeVertexBuffer(dec, count, stride, ours);
		let bad = same(dec, input);
		if (bad) return `reference decoding of ours differs from the input: ${bad}`;
		const gltf = new Uint8Array(count * stride);
		MeshoptDecoder.decodeGltfBuffer(gltf, count, stride, ours, 'ATTRIBUTES', 'NONE');
		bad = same(gltf, input);
		if (bad) return `decodeGltfBuffer of ours differs from the input: ${bad}`;

		const ref = MeshoptEncoder.encodeVertexBufferLevel(input, count, stride, 2, 0);
		// version 0 makes no level-dependent choices: every level must agree
		for (const level of [0, 1, 3]) {
			bad = same(MeshoptEncoder.encodeVertexBufferLevel(input, count, stride, level, 0), ref);
			if (bad) return `reference v0 encodings differ between levels 2 and ${level}: ${bad}`;
		}
		bad = same(MeshoptEncoder.encodeGltfBuffer(input, count, stride, 'ATTRIBUTES'), ref);
		if (bad) return `encodeGltfBuffer differs from encodeVertexBufferLevel(.., 2, 0): ${bad}`;
		write(`${name}.ref`, ref);
		write(`${name}.ref1`, MeshoptEncoder.encodeVertexBufferLevel(input, count, stride, 3, 1));
		return null;
	}
	if (kind === 'index' || kind === 'sequence') {
		const size = stride;
		const input = read(`${name}.in`);
		const ours = read(`${name}.ours`);
		const ourdec = read(`${name}.ourdec`);
		const dec = new Uint8Array(count * size);
		const gltf = new Uint8Array(count * size);
		if (kind === 'index') {
			MeshoptDecoder.decodeIndexBuffer(dec, count, size, ours);
			MeshoptDecoder.decodeGltfBuffer(gltf, count, size, ours, 'TRIANGLES');
		} else {
			MeshoptDecoder.decodeIndexSequence(dec, count, size, ours);
			MeshoptDecoder.decodeGltfBuffer(gltf, count, size, ours, 'INDICES');
		}
		let bad = same(dec, ourdec);
		if (bad) return `reference decoding of ours differs from our decoding: ${bad}`;
		bad = same(gltf, ourdec);
		if (bad) return `decodeGltfBuffer of ours differs from our decoding: ${bad}`;
		if (kind === 'index') {
			bad = same(canonical(indexValues(dec, size)), canonical(indexValues(input, size)));
			if (bad) return `reference decoding of ours is not the input's triangles: ${bad}`;
		}
		const encode = kind === 'index' ? MeshoptEncoder.encodeIndexBuffer : MeshoptEncoder.encodeIndexSequence;
		write(`${name}.ref`, encode(input, count, size));
		return null;
	}
	if (kind in filters) {
		const bits = Number(args[2]);
		const floats = new Float32Array(read(`${name}.f32`).buffer);
		let ref;
		if (kind === 'oct') ref = MeshoptEncoder.encodeFilterOct(floats, count, stride, bits);
		else if (kind === 'quat') ref = MeshoptEncoder.encodeFilterQuat(floats, count, stride, bits);
		else ref = MeshoptEncoder.encodeFilterExp(floats, count, stride, bits, args[3]);
		write(`${name}.ref`, ref);

		const oursv = read(`${name}.oursv`);
		const ourdec = read(`${name}.ourdec`);
		const dec = new Uint8Array(count * stride);
		MeshoptDecoder.decodeGltfBuffer(dec, count, stride, oursv, 'ATTRIBUTES', filters[kind]);
		let bad = same(dec, ourdec);
		if (bad) return `reference filter decoding differs from ours: ${bad}`;
		const dec2 = new Uint8Array(count * stride);
		MeshoptDecoder.decodeVertexBuffer(dec2, count, stride, oursv, filters[kind]);
		bad = same(dec2, ourdec);
		if (bad) return `reference decodeVertexBuffer with filter differs from ours: ${bad}`;
		return null;
	}
	return `unknown case kind ${kind}`;
}

const results = [];
let failures = 0;
for (const line of readFileSync(join(dir, 'manifest.txt'), 'utf8').split('\n')) {
	const fields = line.trim().split(/\s+/);
	if (fields.length < 4) continue;
	const [kind, name, ...args] = fields;
	let why;
	try {
		why = run(kind, name, args);
	} catch (e) {
		why = `exception: ${e && e.message ? e.message : e}`;
	}
	if (why) {
		failures++;
		results.push(`${name} FAIL ${why}`);
	} else {
		results.push(`${name} ok`);
	}
}
writeFileSync(join(dir, 'results.txt'), results.join('\n') + '\n');
console.log(`meshoptimizer reference: ${results.length} cases, ${failures} failed`);
