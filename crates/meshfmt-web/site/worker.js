// The conversions run here, off the page's thread: the page stays responsive while a
// large file converts. Messages: {id, op, args} in; {id, progress} while working, then
// {id, ok: true, result} or {id, ok: false, error: {kind, message, report?}} out.
import init, { Files, info, convert, formats } from './pkg/meshfmt_web.js';

const ready = init({ module_or_path: new URL('./pkg/meshfmt_web_bg.wasm', import.meta.url) });
// A module's memory only grows: the page starts a fresh worker once this one holds much.
let memory = null;
ready.then((exports) => { memory = exports.memory; });
const memoryBytes = () => (memory ? memory.buffer.byteLength : 0);

// Errors from Rust arrive as JSON text ({kind, message}); anything else (a trap, a
// message from JavaScript) is reported as an internal error.
function errorOf(e) {
  if (typeof e === 'string') {
    try {
      const parsed = JSON.parse(e);
      if (parsed && typeof parsed.kind === 'string') return parsed;
    } catch (_) { /* not ours */ }
    return { kind: 'internal', message: `meshfmt: ${e}` };
  }
  return { kind: 'internal', message: `meshfmt: ${e && e.message ? e.message : String(e)}` };
}

// The files dropped on the page, kept here so each is handed over once.
let dropped = null;

function filesOf(map) {
  const files = new Files();
  for (const [name, bytes] of Object.entries(map)) files.add(name, bytes);
  return files;
}

// A call's files: its own when it brings them (freed after), else the dropped ones.
function withFiles(map, f) {
  if (!map) {
    dropped ??= new Files();
    return f(dropped);
  }
  const set = filesOf(map);
  try {
    return f(set);
  } finally {
    set.free();
  }
}

const ops = {
  formats() {
    return JSON.parse(formats());
  },
  add({ files }) {
    dropped ??= new Files();
    for (const [name, bytes] of Object.entries(files)) dropped.add(name, bytes);
    return dropped.count();
  },
  clear() {
    dropped?.free();
    dropped = null;
    return 0;
  },
  info({ name, files, maxMemory }) {
    return withFiles(files, (set) => JSON.parse(info(set, name, maxMemory ?? undefined)));
  },
  convert({ files, options }, progress) {
    progress({ stage: 'converting' });
    const out = withFiles(files, (set) => convert(set, JSON.stringify(options)));
    try {
      progress({ stage: 'handing over' });
      const result = { files: {}, names: [], report: JSON.parse(out.report()) };
      for (let i = 0; i < out.count(); i++) {
        const name = out.name(i);
        result.names.push(name);
        result.files[name] = out.bytes(i);
      }
      return result;
    } finally {
      out.free();
    }
  },
  zip({ files }) {
    return withFiles(files, (set) => set.zip());
  },
};

// Buffers go back to the page without a copy.
function transferables(result) {
  const list = [];
  const walk = (v) => {
    if (v instanceof Uint8Array) list.push(v.buffer);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(result);
  return list;
}

self.onmessage = async (event) => {
  const { id, op, args } = event.data;
  try {
    await ready;
    const run = ops[op];
    if (!run) throw JSON.stringify({ kind: 'usage', message: `meshfmt: no operation '${op}'` });
    const result = run(args || {}, (p) => self.postMessage({ id, progress: p }));
    self.postMessage({ id, ok: true, result, memory: memoryBytes() }, transferables(result));
  } catch (e) {
    self.postMessage({ id, ok: false, error: errorOf(e), memory: memoryBytes() });
  }
};
