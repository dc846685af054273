// The page: files dropped in, their `info` tables, a preview drawn from our own glTF
// output, a conversion and its downloads. Every conversion runs in the worker
// (worker.js); `window.meshfmt` is the same API for scripts and tests.
import * as THREE from './vendor/three/build/three.module.js';
import { GLTFLoader } from './vendor/three/examples/jsm/loaders/GLTFLoader.js';
import { OrbitControls } from './vendor/three/examples/jsm/controls/OrbitControls.js';

// ---------------------------------------------------------------- the worker's API

/** An error from meshfmt: `kind` as the library names it, `message` the tool's line. */
class MeshfmtError extends Error {
  constructor({ kind, message, report }) {
    super(message);
    this.name = 'MeshfmtError';
    this.kind = kind;
    if (report) this.report = report;
  }
}

let worker = null;
let nextId = 1;
let restartSoon = false;
/** A worker whose module has grown past this is replaced after its call. */
const MAX_WORKER_MEMORY = 512 * 1024 * 1024;
const pending = new Map();

function startWorker() {
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (event) => {
    const { id, progress, ok, result, error, memory } = event.data;
    const call = pending.get(id);
    if (!call) return;
    if (progress) { call.onProgress?.(progress); return; }
    pending.delete(id);
    // A trap leaves the module unusable, and a module's memory never shrinks: after
    // either, the next call gets a fresh worker (once the calls under way are done).
    if ((!ok && error.kind === 'internal') || memory > MAX_WORKER_MEMORY) restartSoon = true;
    if (restartSoon && pending.size === 0) { restartSoon = false; restartWorker(); }
    if (ok) call.resolve(result);
    else call.reject(new MeshfmtError(error));
  };
  worker.onerror = (event) => {
    event.preventDefault();
    const message = `meshfmt: the worker stopped: ${event.message || 'unknown error'}`;
    restartWorker();
    for (const [id, call] of pending) {
      pending.delete(id);
      call.reject(new MeshfmtError({ kind: 'internal', message }));
    }
  };
}

function restartWorker() {
  worker?.terminate();
  startWorker();
  // The new module has none of the dropped files yet.
  if (Object.keys(state.files).length) call('add', { files: state.files }).catch(() => {});
}

function call(op, args, onProgress, transfer = []) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    worker.postMessage({ id, op, args }, transfer);
  });
}

startWorker();

const api = {
  MeshfmtError,
  /** The formats the tool reads and writes. */
  formats: () => call('formats', {}),
  /**
   * `meshfmt info --json` of `name`: its bytes given (side files from `files`, {name: bytes}),
   * or, with no bytes, a file dropped on the page (side files: the other dropped files).
   */
  info: (name, bytes, files = {}) => call('info', bytes ? { name, files: { ...files, [name]: bytes } } : { name }),
  /**
   * `meshfmt convert`: `{files: {name: Uint8Array}, main, to, version, quality, anims: [names],
   * skeleton, split, maxMemory}` → `{files: {name: Uint8Array}, names: [...], report}`.
   * Without `files`, the files dropped on the page.
   */
  convert: ({ files, onProgress, ...options }) => call('convert', { files, options }, onProgress),
  /** Several files as one `.zip` (Uint8Array). */
  zip: (files) => call('zip', { files }),
  /** What was dropped on the page, by name. */
  dropped: {},
};
window.meshfmt = api;

// ---------------------------------------------------------------- page state and helpers

const $ = (id) => document.getElementById(id);
const state = { files: {}, infos: {}, formats: [], lastResult: null, previewName: null };
// Counters on <body> tell scripts (and the tests) when a step has finished.
const done = { drops: 0, conversions: 0 };
const mark = (what) => { document.body.dataset[what] = String(++done[what]); };
let formatsReady = api.formats().then((f) => { state.formats = f; fillTargets(); });

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  for (const c of children) e.append(c);
  return e;
}

function showError(message) {
  const box = $('error');
  box.textContent = message;
  box.hidden = !message;
}

function progress(text, value = null) {
  $('progress').hidden = text === null;
  $('progress-text').textContent = text ?? '';
  const bar = $('progress-bar');
  if (value === null) bar.removeAttribute('value'); else bar.value = value;
}

const humanSize = (n) => n < 1000 ? `${n} B` : n < 1e6 ? `${(n / 1e3).toFixed(1)} kB` : `${(n / 1e6).toFixed(1)} MB`;

// ---------------------------------------------------------------- dropping files

/** Reads dropped files with progress; names keep their folders below the drop. */
async function readAll(entries) {
  const total = entries.reduce((s, e) => s + e.file.size, 0);
  let done = 0;
  const out = {};
  for (const { name, file } of entries) {
    const reader = file.stream().getReader();
    const parts = [];
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) break;
      parts.push(value);
      done += value.length;
      progress(`reading ${name}`, total ? done / total : null);
    }
    const bytes = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
    let at = 0;
    for (const p of parts) { bytes.set(p, at); at += p.length; }
    out[name] = bytes;
  }
  return out;
}

/** Names relative to the dropped folder: its own name taken off when all share it. */
function relativeNames(files) {
  const paths = files.map((f) => f.webkitRelativePath || f.name);
  const first = paths.map((p) => p.split('/')[0]);
  const strip = paths.every((p) => p.includes('/')) && first.every((f) => f === first[0]);
  return files.map((file, i) => ({ file, name: strip ? paths[i].slice(first[0].length + 1) : paths[i] }));
}

async function collectDrop(dataTransfer) {
  const items = [...dataTransfer.items].map((i) => i.webkitGetAsEntry?.()).filter(Boolean);
  if (!items.length) return relativeNames([...dataTransfer.files]);
  const out = [];
  const walk = async (entry, prefix) => {
    if (entry.isFile) {
      const file = await new Promise((res, rej) => entry.file(res, rej));
      out.push({ file, name: prefix + file.name });
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
        if (!batch.length) break;
        for (const e of batch) await walk(e, `${prefix}${entry.name}/`);
      }
    }
  };
  for (const e of items) await walk(e, '');
  // One folder dropped: names from inside it.
  return relativeNames(out.map(({ file, name }) => Object.defineProperty(file, 'webkitRelativePath', { value: name })));
}

async function addFiles(entries) {
  showError('');
  try {
    const files = await readAll(entries);
    Object.assign(state.files, files);
    api.dropped = state.files;
    progress('reading what the files hold');
    await call('add', { files });
    for (const name of Object.keys(files)) {
      try {
        state.infos[name] = await api.info(name);
      } catch (e) {
        state.infos[name] = { error: e.message };
      }
    }
    renderFiles();
    fillForm();
    progress(null);
    await previewBest();
  } catch (e) {
    progress(null);
    showError(e.message);
  } finally {
    mark('drops');
  }
}

$('file-input').addEventListener('change', (e) => addFiles(relativeNames([...e.target.files])).then(() => { e.target.value = ''; }));
$('folder-input').addEventListener('change', (e) => addFiles(relativeNames([...e.target.files])).then(() => { e.target.value = ''; }));
$('drop').addEventListener('dragover', (e) => { e.preventDefault(); $('drop').classList.add('over'); });
$('drop').addEventListener('dragleave', () => $('drop').classList.remove('over'));
$('drop').addEventListener('drop', async (e) => {
  e.preventDefault();
  $('drop').classList.remove('over');
  await addFiles(await collectDrop(e.dataTransfer));
});
$('clear').addEventListener('click', () => {
  state.files = {}; state.infos = {}; api.dropped = {};
  call('clear', {}).catch(() => {});
  renderFiles(); fillForm(); clearPreview();
  $('result').hidden = true;
  showError('');
});

// ---------------------------------------------------------------- info tables

const COUNTS = ['surfaces', 'vertices', 'triangles', 'bones', 'animations', 'materials', 'textures'];

function renderFiles() {
  const body = $('files').tBodies[0];
  body.replaceChildren();
  const names = Object.keys(state.files);
  $('files-section').hidden = names.length === 0;
  $('convert-section').hidden = names.length === 0;
  for (const name of names) {
    const info = state.infos[name] || {};
    const row = el('tr', { className: info.error ? 'bad' : '' });
    row.dataset.name = name;
    row.dataset.state = info.error ? 'error' : 'ready';
    row.append(el('td', { textContent: name }), el('td', { textContent: humanSize(state.files[name].length) }));
    if (info.error) {
      row.append(el('td', { colSpan: 9, textContent: info.error, className: 'error-cell' }));
    } else {
      row.append(el('td', { textContent: info.format }), el('td', { textContent: info.version }));
      for (const k of COUNTS) row.append(el('td', { textContent: String(info[k] ?? 0), className: 'num' }));
    }
    row.addEventListener('click', () => renderDetails(name));
    body.append(row);
  }
  $('details').replaceChildren();
}

/** The `detail` sections of one file's info, one table each. */
function renderDetails(name) {
  const info = state.infos[name];
  const box = $('details');
  box.replaceChildren(el('h3', { textContent: name }));
  if (!info || info.error) return;
  for (const [section, rows] of Object.entries(info.detail || {})) {
    const list = Array.isArray(rows) ? rows : [rows];
    if (!list.length) continue;
    const keys = [...new Set(list.flatMap((r) => (r && typeof r === 'object' ? Object.keys(r) : ['value'])))];
    const table = el('table', { className: 'detail' });
    table.append(el('caption', { textContent: section }));
    table.append(el('tr', {}, ...keys.map((k) => el('th', { textContent: k }))));
    for (const r of list.slice(0, 500)) {
      const obj = r && typeof r === 'object' ? r : { value: r };
      table.append(el('tr', {}, ...keys.map((k) => el('td', { textContent: fmt(obj[k]) }))));
    }
    if (list.length > 500) table.append(el('tr', {}, el('td', { colSpan: keys.length, textContent: `… ${list.length - 500} more` })));
    box.append(table);
  }
}

const fmt = (v) => v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);

// ---------------------------------------------------------------- the form

const isClipFile = (i) => i && !i.error && i.animations > 0 && i.surfaces === 0;
const isSkeletonFile = (i) => i && !i.error && i.bones > 0 && i.surfaces === 0 && i.animations === 0;
const isModel = (i) => i && !i.error && i.surfaces > 0;

function fillTargets() {
  const to = $('to');
  to.replaceChildren();
  to.append(el('option', { value: 'glb', textContent: 'glTF binary (.glb)' }));
  to.append(el('option', { value: 'gltf', textContent: 'glTF (.gltf + .bin)' }));
  for (const f of state.formats) {
    if (f.canWrite && f.name !== 'gltf') to.append(el('option', { value: f.name, textContent: `${f.name} (.${f.extensions[0]})` }));
  }
  fillVersions();
}

function fillVersions() {
  const f = state.formats.find((x) => x.name === $('to').value) || { versions: [], qualities: [] };
  const version = $('version');
  version.replaceChildren(el('option', { value: '', textContent: 'default' }), ...f.versions.map((v) => el('option', { value: v.name, textContent: v.name })));
  const quality = $('quality');
  quality.replaceChildren(el('option', { value: '', textContent: 'default' }), ...f.qualities.map((q) => el('option', { value: q, textContent: q })));
  $('split').disabled = !f.versions.some((v) => v.splits);
  if ($('split').disabled) $('split').checked = false;
}
$('to').addEventListener('change', fillVersions);

function fillForm() {
  const names = Object.keys(state.files);
  const main = $('main');
  const previous = main.value;
  // Models first (an appearance before the meshes it binds), then the rest.
  const rank = (n) => (n.endsWith('.apr') ? 0 : isModel(state.infos[n]) ? 1 : isClipFile(state.infos[n]) ? 3 : 2);
  const sorted = [...names].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  main.replaceChildren(...sorted.map((n) => el('option', { value: n, textContent: n })));
  if (names.includes(previous)) main.value = previous;
  const skeleton = $('skeleton');
  skeleton.replaceChildren(el('option', { value: '', textContent: 'none' }),
    ...names.filter((n) => isSkeletonFile(state.infos[n])).map((n) => el('option', { value: n, textContent: n })));
  if (skeleton.options.length === 2) skeleton.value = skeleton.options[1].value;
  const anims = $('anims');
  anims.replaceChildren(el('legend', { textContent: 'Clips from' }));
  for (const n of names.filter((x) => isClipFile(state.infos[x]))) {
    const box = el('input', { type: 'checkbox', value: n, checked: true });
    anims.append(el('label', {}, box, ` ${n}`));
  }
  anims.hidden = anims.querySelectorAll('input').length === 0;
}

function formOptions() {
  const main = $('main').value;
  const anims = [...$('anims').querySelectorAll('input:checked')].map((b) => b.value).filter((n) => n !== main);
  return {
    main,
    to: $('to').value,
    version: $('version').value || null,
    quality: $('quality').value || null,
    anims,
    skeleton: $('skeleton').value && $('skeleton').value !== main ? $('skeleton').value : null,
    split: $('split').checked,
  };
}

$('convert-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  await convertNow();
});

/** Converts with the form's options; shows the files, the report, and a preview of glTF. */
async function convertNow() {
  showError('');
  $('result').hidden = true;
  const options = formOptions();
  const started = performance.now();
  const tick = setInterval(() => progress(`converting ${options.main}: ${((performance.now() - started) / 1000).toFixed(1)} s`), 100);
  try {
    const result = await api.convert(options);
    state.lastResult = { result, options, ms: performance.now() - started };
    state.lastError = null;
    renderResult(result);
    if (options.to === 'glb') await previewOf(result.files[result.names[0]], options.main);
    return result;
  } catch (err) {
    state.lastError = { kind: err.kind ?? 'internal', message: err.message };
    showError(err.message);
    if (err.report) renderReport(err.report);
    return null;
  } finally {
    clearInterval(tick);
    progress(null);
    mark('conversions');
  }
}

function download(name, bytes) {
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  const a = el('a', { href: url, download: name.split('/').pop() });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

function renderResult(result) {
  $('result').hidden = false;
  const list = $('downloads');
  list.replaceChildren();
  for (const name of result.names) {
    const button = el('button', { type: 'button', textContent: `${name} (${humanSize(result.files[name].length)})` });
    button.dataset.name = name;
    button.addEventListener('click', () => download(name, result.files[name]));
    list.append(el('li', {}, button));
  }
  $('download-all').hidden = result.names.length < 2;
  renderReport(result.report);
}

$('download-all').addEventListener('click', async () => {
  const result = state.lastResult?.result;
  if (!result) return;
  try {
    const stem = result.report.output.replace(/\.[^.]*$/, '');
    download(`${stem}.zip`, await api.zip(result.files));
  } catch (err) {
    showError(err.message);
  }
});

function renderReport(report) {
  $('result').hidden = false;
  const body = $('losses').tBodies[0];
  body.replaceChildren();
  for (const l of report.losses) {
    body.append(el('tr', {}, ...[l.feature, l.kind, l.bound ?? '', l.path, l.reason].map((t) => el('td', { textContent: String(t) }))));
  }
  if (!report.losses.length) body.append(el('tr', {}, el('td', { colSpan: 5, textContent: 'nothing lost' })));
  $('warnings').replaceChildren(...report.warnings.map((w) => el('li', { textContent: w })));
}

// ---------------------------------------------------------------- preview

const view = {
  renderer: null, scene: null, camera: null, controls: null, mixer: null, model: null,
  skeleton: null, clips: [], action: null, playing: true, clock: new THREE.Clock(),
};

function setupView() {
  if (view.renderer) return;
  const canvas = $('view');
  view.renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
  view.renderer.setPixelRatio(1);
  view.scene = new THREE.Scene();
  view.scene.background = new THREE.Color(0x30343a);
  view.scene.add(new THREE.HemisphereLight(0xffffff, 0x444455, 2.0));
  const sun = new THREE.DirectionalLight(0xffffff, 2.0);
  sun.position.set(3, 5, 4);
  view.scene.add(sun);
  view.camera = new THREE.PerspectiveCamera(45, canvas.width / canvas.height, 0.01, 1000);
  view.controls = new OrbitControls(view.camera, canvas);
  view.controls.addEventListener('change', redraw);
  // Drawn while a clip plays, else only when something changed: an idle page costs
  // nothing.
  view.renderer.setAnimationLoop(() => {
    const dt = view.clock.getDelta();
    const playing = view.mixer && view.playing && view.action;
    if (playing) {
      view.mixer.update(dt);
      syncSlider();
    }
    if (playing || view.dirty) {
      view.dirty = false;
      view.renderer.render(view.scene, view.camera);
    }
  });
}

function redraw() {
  view.dirty = true;
}

/** Past these the preview is left out: three.js would take minutes to set them up. */
const PREVIEW_LIMITS = { bones: 20000, triangles: 5000000 };

function tooBigToPreview(info) {
  if (!info || info.error) return null;
  if (info.bones > PREVIEW_LIMITS.bones) return `${info.bones} bones`;
  if (info.triangles > PREVIEW_LIMITS.triangles) return `${info.triangles} triangles`;
  return null;
}

function clearPreview() {
  if (view.model) view.scene.remove(view.model);
  if (view.skeleton) view.scene.remove(view.skeleton);
  view.model = view.skeleton = view.mixer = view.action = null;
  view.clips = [];
  $('clips').replaceChildren();
  $('preview-section').hidden = true;
  window.meshfmt.preview = null;
}

/** Draws a glb (our own output) with its skeleton and its clips. */
async function showPreview(glb, name) {
  setupView();
  clearPreview();
  const gltf = await new GLTFLoader().parseAsync(glb.slice().buffer, '');
  // A file of clips alone may have no scene to show, only bones.
  view.model = gltf.scene || gltf.scenes?.[0] || new THREE.Group();
  view.scene.add(view.model);
  view.skeleton = new THREE.SkeletonHelper(view.model);
  view.skeleton.visible = $('show-skeleton').checked;
  view.scene.add(view.skeleton);
  // Frame what is there, at rest.
  const box = new THREE.Box3().setFromObject(view.model, true);
  const size = box.getSize(new THREE.Vector3()).length() || 1;
  const centre = box.getCenter(new THREE.Vector3());
  view.camera.near = size / 1000;
  view.camera.far = size * 100;
  view.camera.position.copy(centre).add(new THREE.Vector3(0.6, 0.35, 1).normalize().multiplyScalar(size * 1.8));
  view.camera.updateProjectionMatrix();
  view.controls.target.copy(centre);
  view.controls.update(); // aims the camera at the target
  view.mixer = new THREE.AnimationMixer(view.model);
  view.clips = gltf.animations;
  const list = $('clips');
  list.replaceChildren();
  gltf.animations.forEach((clip, i) => {
    const b = el('button', { type: 'button', textContent: `${clip.name || `clip ${i}`} (${clip.duration.toFixed(2)} s)` });
    b.dataset.clip = String(i);
    b.addEventListener('click', () => playClip(i));
    list.append(el('li', {}, b));
  });
  $('preview-section').hidden = false;
  state.previewName = name;
  redraw();
  window.meshfmt.preview = {
    name,
    clips: gltf.animations.map((c) => ({ name: c.name, duration: c.duration })),
    play: playClip,
    seek,
    pause: () => setPlaying(false),
    bones: gltf.parser.json.nodes?.length ?? 0,
  };
  if (gltf.animations.length) playClip(0);
  else { $('play').disabled = true; $('frame').disabled = true; }
}

function playClip(i) {
  const clip = view.clips[i];
  if (!clip) return;
  view.mixer.stopAllAction();
  view.action = view.mixer.clipAction(clip);
  view.action.play();
  const slider = $('frame');
  slider.max = String(clip.duration || 0);
  slider.disabled = false;
  $('play').disabled = false;
  for (const b of $('clips').querySelectorAll('button')) b.classList.toggle('on', b.dataset.clip === String(i));
  setPlaying(true);
}

function setPlaying(on) {
  view.playing = on;
  $('play').textContent = on ? 'Pause' : 'Play';
}

function seek(t) {
  if (!view.action) return;
  setPlaying(false);
  view.action.time = Math.max(0, Math.min(t, view.action.getClip().duration));
  view.mixer.update(0);
  syncSlider();
  redraw();
}

function syncSlider() {
  if (!view.action) return;
  $('frame').value = String(view.action.time);
  $('frame-text').textContent = `${view.action.time.toFixed(2)} / ${view.action.getClip().duration.toFixed(2)} s`;
}

$('play').addEventListener('click', () => setPlaying(!view.playing));
$('frame').addEventListener('input', (e) => seek(Number(e.target.value)));
$('show-skeleton').addEventListener('change', (e) => { if (view.skeleton) view.skeleton.visible = e.target.checked; redraw(); });

/** The preview of a glb; what three.js cannot draw is said beside it, not as an error. */
/** The node count of a glb (its JSON chunk), to keep huge hierarchies out of three.js. */
function glbNodes(glb) {
  try {
    const view32 = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
    const length = view32.getUint32(12, true);
    const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + length)));
    return json.nodes?.length ?? 0;
  } catch (_) {
    return 0;
  }
}

async function previewOf(glb, name) {
  $('preview-note').textContent = '';
  // Off: no preview at all (a software renderer takes minutes over some models).
  if (!$('auto-preview').checked) {
    clearPreview();
    return;
  }
  const nodes = glb ? glbNodes(glb) : 0;
  const big = tooBigToPreview(state.infos[name]) ?? (nodes > PREVIEW_LIMITS.bones ? `${nodes} nodes` : null);
  if (big) {
    clearPreview();
    $('preview-section').hidden = false;
    $('preview-note').textContent = `no preview of ${name}: ${big} are more than the preview draws`;
    return;
  }
  try {
    await showPreview(glb, name);
  } catch (err) {
    clearPreview();
    $('preview-section').hidden = false;
    $('preview-note').textContent = `no preview of ${name}: ${err.message}`;
  }
}

/** After a drop: the first model (with the clips and skeleton dropped beside it) as glTF. */
async function previewBest() {
  if (!$('auto-preview').checked) return;
  const options = formOptions();
  if (!options.main || !isModel(state.infos[options.main]) && !isClipFile(state.infos[options.main])) return;
  if (tooBigToPreview(state.infos[options.main])) { await previewOf(null, options.main); return; }
  progress(`preparing the preview of ${options.main}`);
  try {
    const result = await api.convert({ ...options, to: 'glb', version: null, quality: null, split: false });
    await previewOf(result.files[result.names[0]], options.main);
  } catch (err) {
    showError(err.message);
  } finally {
    progress(null);
  }
}

window.meshfmt.ui = {
  convertNow, formOptions, ready: () => formatsReady, last: () => state.lastResult, lastError: () => state.lastError,
};
await formatsReady;
document.body.dataset.ready = 'true';
