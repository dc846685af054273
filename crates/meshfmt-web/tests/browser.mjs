// The page in a real browser (Debian's chromium, driven by playwright-core), against the
// native tool. Run by `cargo xtask web --test`, which serves the site and sets:
//   MESHFMT_WEB_URL (the page), MESHFMT_BIN (the native tool), MESHFMT_WEB_WORK (a
//   scratch folder), MESHFMT_HOSTILE_DIR (fuzz_checks::hostile's corpus), MESHFMT_ROOT.
// ../shared/samples (or MESHFMT_SAMPLES) holds the real files; without it the sample
// cases are skipped with a notice, unless MESHFMT_REQUIRE_SAMPLES is set (CI).
//
// What it checks:
// 1. every case of cases.json: the files dropped on the page (the folder input), the
//    page's form set, converted, downloaded (one file, or the .zip); the same bytes, the
//    same losses and warnings as the native tool gives for the same files; then the
//    result dropped back and converted to the family's own format, compared alike;
// 2. a character's preview: a clip played, stopped mid-run, the canvas saved as PNG and
//    checked not blank;
// 3. every hostile input shows an error, and the page then converts a good file;
// 4. a 1,000,000-triangle OBJ converted to .glb in the page and by the native tool, side
//    by side (the times are printed; the bytes compared by SHA-256), the page's main
//    thread ticking throughout;
// 5. no request leaves the page's own origin.
import { chromium } from 'playwright-core';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const env = process.env;
const URL_ = env.MESHFMT_WEB_URL;
const BIN = env.MESHFMT_BIN;
const WORK = env.MESHFMT_WEB_WORK;
const HOSTILE = env.MESHFMT_HOSTILE_DIR;
const ROOT = env.MESHFMT_ROOT;
if (!URL_ || !BIN || !WORK || !HOSTILE || !ROOT) {
  console.error('browser.mjs: run it with `cargo xtask web --test`');
  process.exit(2);
}
const SAMPLES = env.MESHFMT_SAMPLES || path.join(ROOT, '..', 'shared', 'samples');
const haveSamples = fs.existsSync(SAMPLES);
if (!haveSamples && env.MESHFMT_REQUIRE_SAMPLES) {
  console.error(`browser.mjs: ${SAMPLES} not found, and MESHFMT_REQUIRE_SAMPLES is set`);
  process.exit(1);
}

// MESHFMT_WEB_ONLY=REGEX runs the steps whose names match (cases, 'hostile', 'million').
const only = env.MESHFMT_WEB_ONLY ? new RegExp(env.MESHFMT_WEB_ONLY) : null;
const wanted = (name) => !only || only.test(name);

let failures = 0;
const fail = (what) => { failures += 1; console.log(`FAIL ${what}`); };
const ok = (what) => console.log(`ok   ${what}`);
const check = (cond, what, detail = '') => (cond ? ok(what) : fail(`${what}${detail ? `: ${detail}` : ''}`));

// ------------------------------------------------------------------ files and the tool

function source(ref) {
  const [kind, rel] = ref.split(/:(.*)/s);
  return kind === 'samples' ? path.join(SAMPLES, rel) : path.join(ROOT, 'fixtures', rel);
}

function stage(dir, files) {
  fs.rmSync(dir, { recursive: true, force: true });
  for (const [name, from] of Object.entries(files)) {
    const to = path.join(dir, name);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    if (typeof from === 'string') fs.copyFileSync(from, to); else fs.writeFileSync(to, from);
  }
}

function listFiles(dir, base = dir) {
  const out = {};
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) Object.assign(out, listFiles(p, base));
    else out[path.relative(base, p)] = fs.readFileSync(p);
  }
  return out;
}

/** The native tool on the same files: run in their folder, outputs into `out`. */
function runTool(inDir, outDir, options, ext) {
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  const stem = path.basename(options.main).replace(/\.[^.]*$/, '');
  const args = ['convert', options.main, path.join(outDir, `${stem}.${ext}`), '--to', options.to,
    '--side-files', '.', '--report', path.join(outDir, 'report.json.txt')];
  if (options.version) args.push('--version', options.version);
  if (options.quality) args.push('--quality', options.quality);
  if (options.skeleton) args.push('--skeleton', options.skeleton);
  for (const a of options.anims || []) args.push('--anim', a);
  if (options.split) args.push('--anims-dir', outDir);
  const t0 = process.hrtime.bigint();
  const r = spawnSync(BIN, args, { cwd: inDir, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`meshfmt ${args.join(' ')}: ${r.stderr}`);
  const files = listFiles(outDir);
  const report = JSON.parse(files['report.json.txt'].toString('utf8'));
  delete files['report.json.txt'];
  return { files, report, ms };
}

/** A .zip's files (stored or deflated), read from its central directory. */
function unzip(buf) {
  const end = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip: no end of central directory');
  const count = buf.readUInt16LE(end + 10);
  let at = buf.readUInt32LE(end + 16);
  const out = {};
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error('bad central directory');
    const method = buf.readUInt16LE(at + 10);
    const crc = buf.readUInt32LE(at + 16);
    const packed = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.subarray(at + 46, at + 46 + nameLen).toString('utf8');
    const dataAt = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const body = buf.subarray(dataAt, dataAt + packed);
    const data = method === 8 ? zlib.inflateRawSync(body) : Buffer.from(body);
    if (zlib.crc32 && zlib.crc32(data) !== crc) throw new Error(`${name}: CRC mismatch`);
    out[name] = data;
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

// ------------------------------------------------------------------ the page

const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'meshfmt-web-profile-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  chromiumSandbox: false,
  acceptDownloads: true,
  viewport: { width: 1280, height: 1000 },
  args: [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-proxy-server',
    '--disable-extensions', '--mute-audio',
  ],
});
const origin = new URL(URL_).origin;
const foreign = [];
context.on('request', (r) => {
  const u = r.url();
  if (!u.startsWith(`${origin}/`) && !u.startsWith('blob:') && !u.startsWith('data:')) foreign.push(u);
});
const page = context.pages()[0] || await context.newPage();
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(e.message));
page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
await page.goto(URL_, { waitUntil: 'load' });
await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 60000 });
const formats = await page.evaluate(() => window.meshfmt.formats());
const extensionOf = (to) => (to === 'glb' || to === 'gltf' ? to : formats.find((f) => f.name === to).extensions[0]);

const counter = (what) => page.evaluate((w) => Number(document.body.dataset[w] || 0), what);

/** Drops `dir` (or the files `paths`) on the page and waits for their info and preview. */
async function drop(target, { folder = true } = {}) {
  await page.click('#clear');
  const before = await counter('drops');
  await page.setInputFiles(folder ? '#folder-input' : '#file-input', target);
  await page.waitForFunction((n) => Number(document.body.dataset.drops || 0) > n, before, { timeout: 120000 });
}

/** Sets the form to `options`, converts, downloads; the files and the report. */
async function convertInPage(options, downloadDir) {
  await page.selectOption('#main', options.main);
  await page.selectOption('#skeleton', options.skeleton || '');
  for (const box of await page.locator('#anims input').all()) {
    await box.setChecked((options.anims || []).includes(await box.getAttribute('value')));
  }
  await page.selectOption('#to', options.to);
  await page.selectOption('#version', options.version || '');
  await page.selectOption('#quality', options.quality || '');
  await page.setChecked('#split', Boolean(options.split));
  const before = await counter('conversions');
  await page.click('#convert');
  await page.waitForFunction((n) => Number(document.body.dataset.conversions || 0) > n, before, { timeout: 300000 });
  const error = await page.locator('#error').isVisible() ? await page.textContent('#error') : null;
  if (error) throw new Error(`the page says: ${error}`);
  const last = await page.evaluate(() => {
    const l = window.meshfmt.ui.last();
    return { names: l.result.names, report: l.result.report, ms: l.ms, options: l.options };
  });
  fs.rmSync(downloadDir, { recursive: true, force: true });
  fs.mkdirSync(downloadDir, { recursive: true });
  const selector = last.names.length === 1 ? '#downloads button' : '#download-all';
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const saved = path.join(downloadDir, download.suggestedFilename());
  await download.saveAs(saved);
  const bytes = fs.readFileSync(saved);
  const files = last.names.length === 1 ? { [last.names[0]]: bytes } : unzip(bytes);
  return { files, report: last.report, ms: last.ms, options: last.options };
}

/** The page's result against the tool's: the same files, bytes, losses and warnings. */
function compare(what, web, tool) {
  const base = (p) => path.basename(p);
  const webNames = Object.keys(web.files).map(base).sort();
  const toolNames = Object.keys(tool.files).map(base).sort();
  if (JSON.stringify(webNames) !== JSON.stringify(toolNames)) {
    fail(`${what}: files ${JSON.stringify(webNames)} vs the tool's ${JSON.stringify(toolNames)}`);
    return;
  }
  const toolByName = Object.fromEntries(Object.entries(tool.files).map(([n, b]) => [base(n), b]));
  let same = true;
  for (const [name, bytes] of Object.entries(web.files)) {
    if (Buffer.compare(Buffer.from(bytes), toolByName[base(name)]) !== 0) {
      same = false;
      fail(`${what}: ${name} differs from the tool's (${bytes.length} vs ${toolByName[base(name)].length} bytes)`);
    }
  }
  const strip = (r) => JSON.stringify({ input: r.input, losses: r.losses, warnings: r.warnings, written: r.written });
  if (strip(web.report) !== strip(tool.report)) {
    same = false;
    fail(`${what}: report differs\n  page: ${strip(web.report)}\n  tool: ${strip(tool.report)}`);
  }
  if (same) {
    const sizes = webNames.map((n) => `${n} ${toolByName[n].length} B`).join(', ');
    ok(`${what}: byte-identical to the tool (${sizes}; ${web.report.losses.length} losses, ${web.report.warnings.length} warnings)`);
  }
}

// ------------------------------------------------------------------ 1. the sample families

const { cases } = JSON.parse(fs.readFileSync(new URL('./cases.json', import.meta.url), 'utf8'));
const usesSamples = (c) => Object.values(c.drop).some((r) => r.startsWith('samples:'));
for (const c of cases.filter((x) => wanted(x.name))) {
  if (usesSamples(c) && !haveSamples) {
    console.log(`skip ${c.name}: ${SAMPLES} not found`);
    continue;
  }
  const dir = path.join(WORK, c.name);
  try {
    const inDir = path.join(dir, 'in');
    stage(inDir, Object.fromEntries(Object.entries(c.drop).map(([n, r]) => [n, source(r)])));
    await drop(inDir);
    const web = await convertInPage(c.options, path.join(dir, 'page'));
    // The tool gets what the page sent (clips in the page's order).
    const tool = runTool(inDir, path.join(dir, 'tool'), web.options, extensionOf(c.options.to));
    compare(`${c.name}: ${c.options.main} to ${c.options.to}`, web, tool);
    if (c.preview) await previewShot(c);
    if (c.back) {
      const backIn = path.join(dir, 'back-in');
      stage(backIn, tool.files);
      const main = Object.keys(tool.files).find((n) => /\.(glb|gltf)$/.test(n));
      const options = { ...c.back, main };
      await drop(backIn);
      const webBack = await convertInPage(options, path.join(dir, 'back-page'));
      const toolBack = runTool(backIn, path.join(dir, 'back-tool'), webBack.options, extensionOf(options.to));
      compare(`${c.name}: ${main} back to ${options.to}${options.version ? ` ${options.version}` : ''}`, webBack, toolBack);
    }
  } catch (e) {
    fail(`${c.name}: ${e.message}`);
  }
}

// ------------------------------------------------------------------ 2. the preview

async function previewShot(c) {
  const shot = path.join(WORK, c.preview.screenshot);
  const state = await page.evaluate(async (clipName) => {
    const p = window.meshfmt.preview;
    if (!p) return { error: 'no preview' };
    const i = p.clips.findIndex((x) => x.name === clipName);
    if (i < 0) return { error: `no clip ${clipName} among ${p.clips.map((x) => x.name)}` };
    p.play(i);
    await new Promise((r) => setTimeout(r, 300));
    p.seek(p.clips[i].duration / 2);
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    // Pixels that are not the background: the figure (and its skeleton).
    const canvas = document.getElementById('view');
    const copy = document.createElement('canvas');
    copy.width = canvas.width; copy.height = canvas.height;
    const g = copy.getContext('2d');
    g.drawImage(canvas, 0, 0);
    const px = g.getImageData(0, 0, copy.width, copy.height).data;
    let drawn = 0;
    for (let k = 0; k < px.length; k += 4) {
      if (Math.abs(px[k] - 0x30) + Math.abs(px[k + 1] - 0x34) + Math.abs(px[k + 2] - 0x3a) > 24) drawn += 1;
    }
    return { clips: p.clips.length, time: p.clips[i].duration / 2, drawn: drawn / (px.length / 4) };
  }, c.preview.clip);
  if (state.error) { fail(`${c.name} preview: ${state.error}`); return; }
  if (c.preview.wholePage) {
    // The picture of the README: the files, one file's tables, the preview.
    await page.click('#files tbody tr');
    await page.screenshot({ path: shot, fullPage: true });
  } else {
    await page.locator('#view').screenshot({ path: shot });
  }
  check(state.drawn > 0.01, `${c.name} preview: ${c.preview.clip} at ${state.time.toFixed(2)} s of ${state.clips} clips, ${(state.drawn * 100).toFixed(1)}% of the canvas drawn, saved to ${shot}`);
}

// ------------------------------------------------------------------ 3. hostile inputs

/** The tool on one file: its error line, or its output's bytes. */
function toolOn(dir, name) {
  const out = path.join(WORK, 'hostile-tool');
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const stem = name.replace(/\.[^.]*$/, '');
  const r = spawnSync(BIN, ['convert', name, path.join(out, `${stem}.glb`), '--to', 'glb'], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) return { error: r.stderr.trim().split('\n').pop() };
  return { files: listFiles(out) };
}

if (wanted('hostile')) {
  // The preview is three.js on a software renderer here (SwiftShader), where a fan of a
  // million overlapping triangles takes minutes to draw: these steps are about the
  // conversions.
  await page.setChecked('#auto-preview', false);
  const good = path.join(ROOT, 'fixtures', 'unity-meshser', 'cube.bytes');
  const hostile = fs.readdirSync(HOSTILE).filter((f) => f !== 'corpus.tsv').sort();
  let refused = 0;
  let alike = 0;
  for (const name of hostile) {
    try {
      await drop(path.join(HOSTILE, name), { folder: false });
      const before = await counter('conversions');
      await page.selectOption('#main', name);
      await page.selectOption('#to', 'glb');
      await page.click('#convert');
      await page.waitForFunction((n) => Number(document.body.dataset.conversions || 0) > n, before, { timeout: 300000 });
      const shown = await page.locator('#error').isVisible() ? (await page.textContent('#error')).trim() : null;
      const tool = toolOn(HOSTILE, name);
      const kind = await page.evaluate(() => window.meshfmt.ui.lastError()?.kind);
      if (tool.error) {
        // Refused: the page says what the tool says, in the same line. Over the memory
        // budget, the figures (and the array that crossed it) follow each target's
        // memory layout: wasm32's pointers and vectors are half the size.
        const overBudget = kind === 'over-budget' && /memory budget exceeded/.test(tool.error);
        if (shown === tool.error || overBudget) { refused += 1; alike += 1; console.log(`     hostile ${name}: refused, as by the tool: ${shown}`); } else fail(`hostile ${name}: the page shows ${JSON.stringify(shown)}, the tool ${JSON.stringify(tool.error)}`);
      } else if (shown) {
        fail(`hostile ${name}: the page refuses (${shown}) what the tool converts`);
      } else {
        // Converted by the tool (an attack on time or memory, within the limits): the
        // page gives the same bytes.
        const web = await page.evaluate(async () => {
          const l = window.meshfmt.ui.last();
          const f = l.result.files[l.result.names[0]];
          const d = await crypto.subtle.digest('SHA-256', f);
          return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join('');
        });
        const bytes = Object.values(tool.files)[0];
        const hash = crypto.createHash('sha256').update(bytes).digest('hex');
        if (web === hash) { alike += 1; console.log(`     hostile ${name}: converted to the tool's bytes`); } else fail(`hostile ${name}: converted, but not to the tool's bytes`);
      }
      // The page still converts a good file.
      await drop(good, { folder: false });
      const web = await convertInPage({ main: 'cube.bytes', to: 'glb' }, path.join(WORK, 'after-hostile'));
      if (!web.files['cube.glb']) fail(`after hostile ${name}: the good file did not convert`);
    } catch (e) {
      fail(`hostile ${name}: ${e.message}`);
    }
  }
  check(alike === hostile.length, `hostile inputs: ${alike} of ${hostile.length} as the tool does them (${refused} refused with the tool's message, ${alike - refused} converted to the tool's bytes), and a good file converts after each`);
}

// ------------------------------------------------------------------ 4. a million triangles

if (wanted('million')) {
  await page.setChecked('#auto-preview', false);
  const side = 708; // 2 x 708 x 708 = 1,002,528 triangles
  const dir = path.join(WORK, 'big');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const lines = [];
  for (let j = 0; j <= side; j++) {
    for (let i = 0; i <= side; i++) {
      lines.push(`v ${i} ${(Math.sin(i * 0.05) * Math.cos(j * 0.07)).toFixed(4)} ${j}`);
    }
  }
  const n = side + 1;
  for (let j = 0; j < side; j++) {
    for (let i = 0; i < side; i++) {
      const a = j * n + i + 1;
      lines.push(`f ${a} ${a + n} ${a + 1}`, `f ${a + 1} ${a + n} ${a + n + 1}`);
    }
  }
  const obj = path.join(dir, 'big.obj');
  fs.writeFileSync(obj, lines.join('\n') + '\n');
  const size = fs.statSync(obj).size;
  try {
    await drop(obj, { folder: false });
    const runs = 3;
    const native = [];
    const inPage = [];
    let pageHash = null;
    let ticks = [];
    for (let k = 0; k < runs; k++) {
      native.push(runTool(dir, path.join(dir, 'tool'), { main: 'big.obj', to: 'glb' }, 'glb').ms);
      const r = await page.evaluate(async () => {
        // The page's own thread ticks while the worker converts.
        const stamps = [];
        const timer = setInterval(() => stamps.push(performance.now()), 20);
        const t0 = performance.now();
        const out = await window.meshfmt.convert({ main: 'big.obj', to: 'glb' });
        const ms = performance.now() - t0;
        clearInterval(timer);
        let gap = 0;
        for (let i = 1; i < stamps.length; i++) gap = Math.max(gap, stamps[i] - stamps[i - 1]);
        const digest = await crypto.subtle.digest('SHA-256', out.files['big.glb']);
        const hash = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
        return { ms, ticks: stamps.length, gap, hash };
      });
      inPage.push(r.ms);
      pageHash = r.hash;
      ticks.push(r);
    }
    const toolGlb = fs.readFileSync(path.join(dir, 'tool', 'big.glb'));
    const toolHash = crypto.createHash('sha256').update(toolGlb).digest('hex');
    check(pageHash === toolHash, `1M-triangle OBJ (${(size / 1e6).toFixed(1)} MB) to glb (${(toolGlb.length / 1e6).toFixed(1)} MB): the page's bytes are the tool's (SHA-256 ${toolHash.slice(0, 16)})`);
    const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
    const [nm, pm] = [median(native), median(inPage)];
    console.log(`time 1M-triangle OBJ to glb, median of ${runs}, side by side: native tool ${nm.toFixed(0)} ms (process, release build), page ${pm.toFixed(0)} ms (worker call); ratio ${(pm / nm).toFixed(2)}`);
    const worst = ticks.reduce((a, t) => (t.gap > a.gap ? t : a));
    // A page blocked by the conversion would not tick at all until it ended.
    check(ticks.every((t) => t.ticks >= 10 && t.gap < t.ms / 2), `the page kept ticking while converting (fewest ${Math.min(...ticks.map((t) => t.ticks))} ticks, longest gap ${worst.gap.toFixed(0)} ms of a ${worst.ms.toFixed(0)} ms conversion)`);
  } catch (e) {
    fail(`1M-triangle OBJ: ${e.message}`);
  }
}

// ------------------------------------------------------------------ 5. nothing leaves

check(foreign.length === 0, 'no request to any other origin', foreign.slice(0, 5).join(', '));
const unexpected = pageErrors.filter((m) => !/meshfmt:/.test(m));
check(unexpected.length === 0, 'no script error on the page', unexpected.slice(0, 5).join(' | '));

await context.close();
fs.rmSync(profile, { recursive: true, force: true });
console.log(failures ? `${failures} FAILED` : 'all passed');
process.exit(failures ? 1 : 0);
