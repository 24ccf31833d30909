#!/usr/bin/env node
// fix-uws-glibc.mjs: make uWebSockets.js load on glibc < 2.38 (e.g. Debian 12, glibc 2.36).
//
// Why this exists: uWebSockets.js (the npm alias of @btc-vision/uwebsockets.js@20.57.0,
// upstream's prebuilt binaries) ships Linux binaries linked against glibc 2.38. On
// older glibc, require('uWebSockets.js') fails with "version `GLIBC_2.38' not found".
// Only three imported symbols need 2.38: __isoc23_strtol, __isoc23_strtoul and
// __isoc23_sscanf. glibc 2.36 has strtol, strtoul and __isoc99_sscanf, which differ
// only in not accepting C23's "0b" binary prefix. So we re-point those three imports
// in place (same file size, 8 bytes changed), with no compiler and no patchelf:
//   * .dynsym: __isoc23_strtol / __isoc23_strtoul get st_name moved 9 bytes on, onto
//     the "strtol" / "strtoul" tails of their own .dynstr strings; the bytes "23" of
//     "__isoc23_sscanf" in .dynstr become "99" (only if no other name shares them).
//   * .gnu.version: those symbols become unversioned (VER_NDX_GLOBAL = 1).
//   * .gnu.version_r: the GLIBC_2.38 requirement gets VER_FLG_WEAK, otherwise the
//     loader refuses the file before it even looks at symbols.
//
// It runs from the postinstall/prebuild/prestart/pretest npm scripts. It does nothing
// unless the binary for the running Node really fails to load because of GLIBC_2.38.
// Then it patches every uws_linux_x64_*.node (all Node ABIs), but only files whose
// sha256 is a known pristine 20.57.0 build (table below), and checks that the result
// is byte-for-byte the known patched file. Already patched files are skipped; files
// with any other hash are left alone with a warning. Writes are atomic (temp + rename).
//
// Env: UWS_DIR=<dir> patches that package directory instead of node_modules/uWebSockets.js.
// Exit code: 0, except when the package has no binary for the running Node (e.g. Node 26),
// or patching was needed and the running Node's binary still does not load afterwards.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TAG = 'uWebSockets.js:';
const log = (msg) => console.log(`${TAG} ${msg}`);
const warn = (msg) => console.warn(`${TAG} WARNING: ${msg}`);

// sha256 of the Linux x64 binaries of @btc-vision/uwebsockets.js@20.57.0, as published
// on npm (tarball integrity matches package-lock.json), and of the same files after
// this script patched them. When uWebSockets.js is upgraded, a new table is needed.
const KNOWN_HASHES = {
  'uws_linux_x64_115.node': {
    pristine: '5b126ee00bf754b02e97e4c27090365a8562c5820c93f93918ac2212d4503e91',
    patched: '77f9712f733a7f6a0d6bad6303bd81c24ca3161a0293e58b76e48589823f8003',
  },
  'uws_linux_x64_127.node': {
    pristine: '4b55b1f2cb7a7913febbb65a89496412b96af77e838552980092ba6b33723aac',
    patched: 'a4752d9104e1df37d31987f22bd7d9cd2db89e8165833f2905e6ddd73abfa338',
  },
  'uws_linux_x64_137.node': {
    pristine: '98128405dba2fb608448e921a979530f70c946a2cc9889c15f2fa70c2d00ab05',
    patched: 'f3f0115218cf26f1bebd6da0617e869138fdc1fefed407eb31f32facd51da992',
  },
  'uws_linux_x64_141.node': {
    pristine: '813d788b347c6fd76b779d8932311ec05a044e612b4b83af220f16e6ea789683',
    patched: 'dc967881d3846de9bd7d92949316e8ece5c7c439d25f595d3954ed143d38b0d0',
  },
};

// glibc 2.38 import -> name glibc 2.36 exports with the same behaviour for uWS's use.
const REPLACEMENTS = {
  __isoc23_strtol: 'strtol',
  __isoc23_strtoul: 'strtoul',
  __isoc23_sscanf: '__isoc99_sscanf',
};
const BAD_VERSION = 'GLIBC_2.38';

// ELF constants.
const SHT_STRTAB = 3;
const SHT_DYNAMIC = 6;
const SHT_DYNSYM = 11;
const SHT_GNU_verdef = 0x6ffffffd;
const SHT_GNU_verneed = 0x6ffffffe;
const SHT_GNU_versym = 0x6fffffff;
const PT_LOAD = 1;
const SHN_UNDEF = 0;
const VER_NDX_GLOBAL = 1;
const VER_FLG_WEAK = 0x2;
const EM_X86_64 = 62;
const EM_AARCH64 = 183;
const DT = { NULL: 0, STRTAB: 5, SYMTAB: 6, VERSYM: 0x6ffffff0, VERNEED: 0x6ffffffe };
// .dynamic tags whose value is an offset into .dynstr.
const DT_STRING_TAGS = new Set([1, 14, 15, 29, 0x7ffffffd, 0x7fffffff, 0x6ffffefa, 0x6ffffefb, 0x6ffffefc]);

main();

function main() {
  const pkgDir = findPackageDir();
  if (!pkgDir) {
    log('package not installed, nothing to fix');
    return;
  }

  // A Node line the package has no binary for (Node 26, ABI 147, with 20.57.0) cannot run the hub at all:
  // say so here, at install, rather than as a stack trace at the first start.
  const ownName = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  if (!fs.existsSync(path.join(pkgDir, ownName))) {
    const shipped = fs
      .readdirSync(pkgDir)
      .filter((f) => f.startsWith(`uws_${process.platform}_${process.arch}_`))
      .map((f) => f.replace(/^.*_(\d+)\.node$/, '$1'));
    console.error(
      `${TAG} ERROR: no ${ownName} in v${readPackageVersion(pkgDir) ?? '?'}: Node ${process.version} (ABI ${process.versions.modules}) ` +
        `is not supported by the WebSocket server (it ships ABIs ${shipped.join(', ') || 'none'} for ${process.platform}-${process.arch}). Use Node 24 LTS or 22.`,
    );
    process.exitCode = 1;
    return;
  }

  if (process.platform !== 'linux') return; // Only Linux binaries are glibc-linked.

  const glibc = process.report?.getReport?.()?.header?.glibcVersionRuntime;
  if (!glibc) {
    log('not running on glibc, nothing to fix');
    return;
  }
  if (compareVersions(glibc, '2.38') >= 0) return; // Binaries load as published.

  // Decide by actually loading the binary for the running Node in a child process.
  const runningName = `uws_linux_${process.arch}_${process.versions.modules}.node`;
  const runningFile = path.join(pkgDir, runningName);
  const before = tryLoad(runningFile);
  if (before.ok) {
    log(`${runningName} loads on glibc ${glibc}, nothing to fix`);
    return;
  }
  if (!before.error.includes(BAD_VERSION)) {
    log(`${runningName} does not load, but not because of ${BAD_VERSION} (not fixed here): ${firstLine(before.error)}`);
    return;
  }
  if (process.arch !== 'x64') {
    warn(`${runningName} needs ${BAD_VERSION} (system has glibc ${glibc}); only x64 binaries are patched by this script`);
    return;
  }

  const version = readPackageVersion(pkgDir);
  log(`binaries need ${BAD_VERSION}, system has glibc ${glibc}: patching ${pkgDir} (v${version ?? '?'})`);

  const files = fs.readdirSync(pkgDir).sort();
  for (const name of files.filter((f) => /^uws_linux_x64_\d+\.node$/.test(f))) {
    processX64File(path.join(pkgDir, name), glibc, version);
  }
  reportArm64(
    pkgDir,
    files.filter((f) => /^uws_linux_arm64_\d+\.node$/.test(f)),
  );

  const after = tryLoad(runningFile);
  if (after.ok) {
    log(`${runningName} now loads on Node ${process.version}`);
    return;
  }
  console.error(
    `${TAG} ERROR: ${runningName} still does not load after patching, so uWebSockets.js cannot be used with Node ${process.version} on glibc ${glibc}.`,
  );
  console.error(`${TAG} ${firstLine(after.error)}`);
  console.error(`${TAG} See the warnings above; reinstalling the package (pristine files) and rerunning this script usually fixes it.`);
  process.exitCode = 1;
}

// Locate the installed package: UWS_DIR, else resolve from this script's location.
function findPackageDir() {
  const isPkg = (dir) => fs.existsSync(path.join(dir, 'package.json'));
  if (process.env.UWS_DIR) {
    const dir = path.resolve(process.env.UWS_DIR);
    return isPkg(dir) ? dir : null;
  }
  const require = createRequire(import.meta.url);
  // The package's "exports" does not expose ./package.json, so fall back to the main
  // entry (resolving does not load it), then to the plain node_modules path.
  for (const spec of ['uWebSockets.js/package.json', 'uWebSockets.js']) {
    try {
      const dir = path.dirname(require.resolve(spec));
      if (isPkg(dir)) return dir;
    } catch {
      // try the next way
    }
  }
  const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const dir = path.join(projectRoot, 'node_modules', 'uWebSockets.js');
  return isPkg(dir) ? dir : null;
}

function readPackageVersion(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

// require() the .node file in a fresh Node process (the same executable as ours).
function tryLoad(file) {
  const r = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(file)})`], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.error) return { ok: false, error: String(r.error) };
  return { ok: r.status === 0, error: `${r.stderr || ''}` };
}

function processX64File(file, glibc, version) {
  const name = path.basename(file);
  const buf = fs.readFileSync(file);
  const hash = sha256(buf);
  const known = KNOWN_HASHES[name];

  if (known && hash === known.patched) {
    log(`${name} already patched, skipped`);
    return;
  }
  if (!known || hash !== known.pristine) {
    // Unknown bytes: patching blind could corrupt a binary we know nothing about.
    let looks = '';
    try {
      const plan = planPatch(buf);
      if (plan.alreadyPatched) looks = ' It looks patched by something else.';
      else if (plan.problem) looks = ` It would not be patchable anyway: ${plan.problem}.`;
    } catch (e) {
      looks = ` It is not a readable ELF file: ${e.message}.`;
    }
    warn(
      `left ${name} untouched: its sha256 ${hash} is not a known pristine or patched build of ` +
        `@btc-vision/uwebsockets.js@20.57.0 (installed: v${version ?? '?'}), so it is not patched blind.${looks} ` +
        'Reinstall the package, or if uWebSockets.js was upgraded, update KNOWN_HASHES in scripts/fix-uws-glibc.mjs.',
    );
    return;
  }

  let plan;
  try {
    plan = planPatch(buf);
  } catch (e) {
    warn(`left ${name} untouched: cannot parse it as ELF: ${e.message}`);
    return;
  }
  if (plan.problem) {
    warn(`left ${name} untouched: ${plan.problem}`);
    return;
  }
  if (plan.alreadyPatched) {
    log(`${name} already patched, skipped`);
    return;
  }

  const out = Buffer.from(buf);
  for (const w of plan.writes) w.apply(out);
  const outHash = sha256(out);
  if (outHash !== known.patched) {
    warn(`left ${name} untouched: the patched result has sha256 ${outHash}, not the expected ${known.patched}`);
    return;
  }
  try {
    writeAtomic(file, out);
  } catch (e) {
    warn(`could not write ${name}: ${e.message}`);
    return;
  }
  log(`patched ${name} for glibc ${glibc} (${plan.symbols.length} symbols)`);
}

// arm64 binaries are not patched (the machines are x64); just say so if they need it.
function reportArm64(dir, names) {
  const affected = [];
  for (const name of names) {
    try {
      const elf = parseElf(fs.readFileSync(path.join(dir, name)));
      if (elf.dynsyms.some((s) => s.name in REPLACEMENTS)) affected.push(name);
    } catch {
      // unreadable arm64 file: not our concern on x64
    }
  }
  if (affected.length) {
    log(`skipped ${affected.join(', ')} (arm64 also imports __isoc23_* from ${BAD_VERSION}; only x64 is patched)`);
  }
}

// Write next to the target, then rename over it: readers see the old or the new file,
// never a half-written one (and a process that has the old file mapped keeps it).
function writeAtomic(file, data) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  const { mode } = fs.statSync(file);
  try {
    const fd = fs.openSync(tmp, 'w', mode & 0o777);
    try {
      fs.writeSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

// ---------------------------------------------------------------------------------
// ELF64 little-endian parsing (only what is needed here).

function parseElf(buf) {
  if (buf.length < 64 || buf.readUInt32BE(0) !== 0x7f454c46) throw new Error('not an ELF file');
  if (buf[4] !== 2 || buf[5] !== 1) throw new Error('not ELF64 little-endian');
  const u64 = (off) => {
    const v = buf.readBigUInt64LE(off);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`value out of range at 0x${off.toString(16)}`);
    return Number(v);
  };
  const inFile = (off, size, what) => {
    if (off < 0 || size < 0 || off + size > buf.length) throw new Error(`${what} lies outside the file`);
  };

  const machine = buf.readUInt16LE(18);
  const phoff = u64(0x20);
  const shoff = u64(0x28);
  const phentsize = buf.readUInt16LE(0x36);
  const phnum = buf.readUInt16LE(0x38);
  const shentsize = buf.readUInt16LE(0x3a);
  const shnum = buf.readUInt16LE(0x3c);
  if (shnum === 0 || shentsize !== 64) throw new Error('unsupported section header table');
  if (phentsize !== 56) throw new Error('unsupported program header table');
  inFile(shoff, shnum * 64, 'section header table');
  inFile(phoff, phnum * 56, 'program header table');

  const sections = [];
  for (let i = 0; i < shnum; i++) {
    const o = shoff + i * 64;
    sections.push({
      index: i,
      type: buf.readUInt32LE(o + 4),
      addr: u64(o + 16),
      offset: u64(o + 24),
      size: u64(o + 32),
      link: buf.readUInt32LE(o + 40),
      info: buf.readUInt32LE(o + 44),
      entsize: u64(o + 56),
    });
  }
  const loads = [];
  for (let i = 0; i < phnum; i++) {
    const o = phoff + i * 56;
    if (buf.readUInt32LE(o) === PT_LOAD) {
      loads.push({ offset: u64(o + 8), vaddr: u64(o + 16), filesz: u64(o + 32) });
    }
  }
  // The loader reads these tables through the segments, not the section headers:
  // make sure the section's file bytes are what gets mapped at its address.
  const checkMapped = (sec, what) => {
    inFile(sec.offset, sec.size, what);
    const seg = loads.find((l) => sec.addr >= l.vaddr && sec.addr + sec.size <= l.vaddr + l.filesz);
    if (!seg || seg.offset + (sec.addr - seg.vaddr) !== sec.offset) throw new Error(`${what} is not mapped from its file offset`);
  };
  const only = (type, what) => {
    const found = sections.filter((s) => s.type === type);
    if (found.length !== 1) throw new Error(`expected one ${what} section, found ${found.length}`);
    return found[0];
  };

  const dynsym = only(SHT_DYNSYM, '.dynsym');
  if (dynsym.entsize !== 24 || dynsym.size % 24) throw new Error('bad .dynsym entry size');
  const dynstr = sections[dynsym.link];
  if (!dynstr || dynstr.type !== SHT_STRTAB) throw new Error('.dynsym sh_link is not a string table');
  const versym = only(SHT_GNU_versym, '.gnu.version');
  const verneed = only(SHT_GNU_verneed, '.gnu.version_r');
  const count = dynsym.size / 24;
  if (versym.link !== dynsym.index || versym.size !== count * 2) throw new Error('.gnu.version does not match .dynsym');
  if (verneed.link !== dynstr.index) throw new Error('.gnu.version_r does not use .dynstr');
  checkMapped(dynsym, '.dynsym');
  checkMapped(dynstr, '.dynstr');
  checkMapped(versym, '.gnu.version');
  checkMapped(verneed, '.gnu.version_r');

  // Read a NUL-terminated name from .dynstr.
  const str = (off) => {
    if (off >= dynstr.size) throw new Error(`string offset ${off} outside .dynstr`);
    const start = dynstr.offset + off;
    const end = buf.indexOf(0, start);
    if (end < 0 || end >= dynstr.offset + dynstr.size) throw new Error('unterminated string in .dynstr');
    return buf.toString('latin1', start, end);
  };
  // Every place that holds an offset into .dynstr, to find names sharing bytes.
  const strRefs = [];

  const dynsyms = [];
  for (let i = 0; i < count; i++) {
    const o = dynsym.offset + i * 24;
    const nameOff = buf.readUInt32LE(o);
    dynsyms.push({
      index: i,
      entryOffset: o,
      nameOff,
      name: str(nameOff),
      shndx: buf.readUInt16LE(o + 6),
      versymOffset: versym.offset + i * 2,
      versym: buf.readUInt16LE(versym.offset + i * 2),
    });
    strRefs.push({ off: nameOff, what: `dynsym #${i}` });
  }

  // Vernaux entries (version requirements), chained inside .gnu.version_r.
  const vernaux = [];
  const verneedEnd = verneed.offset + verneed.size;
  let vn = verneed.offset;
  for (let n = 0; n < verneed.info; n++) {
    inFile(vn, 16, 'Verneed entry');
    if (vn + 16 > verneedEnd) throw new Error('Verneed entry outside .gnu.version_r');
    const file = str(buf.readUInt32LE(vn + 4));
    strRefs.push({ off: buf.readUInt32LE(vn + 4), what: 'verneed file' });
    let va = vn + buf.readUInt32LE(vn + 8);
    for (let k = 0; k < buf.readUInt16LE(vn + 2); k++) {
      if (va + 16 > verneedEnd) throw new Error('Vernaux entry outside .gnu.version_r');
      const nameOff = buf.readUInt32LE(va + 8);
      strRefs.push({ off: nameOff, what: 'vernaux name' });
      vernaux.push({ file, name: str(nameOff), flagsOffset: va + 4, flags: buf.readUInt16LE(va + 4), other: buf.readUInt16LE(va + 6) });
      const next = buf.readUInt32LE(va + 12);
      if (!next) break;
      va += next;
    }
    const next = buf.readUInt32LE(vn + 12);
    if (!next) break;
    vn += next;
  }

  // Version definitions (if any) also name things through .dynstr.
  for (const vd of sections.filter((s) => s.type === SHT_GNU_verdef && s.link === dynstr.index)) {
    inFile(vd.offset, vd.size, '.gnu.version_d');
    let o = vd.offset;
    for (let n = 0; n < vd.info; n++) {
      let a = o + buf.readUInt32LE(o + 12);
      for (let k = 0; k < buf.readUInt16LE(o + 6); k++) {
        strRefs.push({ off: buf.readUInt32LE(a), what: 'verdef name' });
        const next = buf.readUInt32LE(a + 4);
        if (!next) break;
        a += next;
      }
      const next = buf.readUInt32LE(o + 16);
      if (!next) break;
      o += next;
    }
  }

  // .dynamic: string-valued tags reference .dynstr; address tags let us check that the
  // sections we edit are the tables the loader actually uses.
  const dynTags = new Map();
  for (const dyn of sections.filter((s) => s.type === SHT_DYNAMIC)) {
    inFile(dyn.offset, dyn.size, '.dynamic');
    for (let o = dyn.offset; o + 16 <= dyn.offset + dyn.size; o += 16) {
      const tag = Number(buf.readBigInt64LE(o));
      if (tag === DT.NULL) break;
      const val = u64(o + 8);
      if (DT_STRING_TAGS.has(tag)) strRefs.push({ off: val, what: `dynamic tag 0x${tag.toString(16)}` });
      dynTags.set(tag, val);
    }
  }
  for (const [tag, sec, what] of [
    [DT.SYMTAB, dynsym, '.dynsym'],
    [DT.STRTAB, dynstr, '.dynstr'],
    [DT.VERSYM, versym, '.gnu.version'],
    [DT.VERNEED, verneed, '.gnu.version_r'],
  ]) {
    if (dynTags.get(tag) !== sec.addr) throw new Error(`${what} is not the table named in .dynamic`);
  }

  return { buf, machine, dynstr, dynsyms, vernaux, strRefs, str };
}

// Work out the byte edits for one file, without changing anything.
// Returns { alreadyPatched } or { problem } or { writes, symbols }.
function planPatch(buf) {
  const elf = parseElf(buf);
  if (elf.machine !== EM_X86_64 && elf.machine !== EM_AARCH64) return { problem: `unexpected machine type ${elf.machine}` };

  const bad = elf.vernaux.filter((v) => v.name === BAD_VERSION);
  const badIdx = new Set(bad.map((v) => v.other));
  const users = elf.dynsyms.filter((s) => badIdx.has(s.versym & 0x7fff));
  const leftover = elf.dynsyms.filter((s) => s.name in REPLACEMENTS);

  if (users.length === 0) {
    if (leftover.length === 0 && bad.every((v) => v.flags & VER_FLG_WEAK)) return { alreadyPatched: true };
    return { problem: `${BAD_VERSION} requirement or __isoc23_* symbols in an unexpected state` };
  }
  const foreign = users.filter((s) => !(s.name in REPLACEMENTS) || s.shndx !== SHN_UNDEF);
  if (foreign.length) {
    return { problem: `it needs ${foreign.map((s) => s.name).join(', ')} from ${BAD_VERSION}, which this script has no replacement for` };
  }

  const writes = [];
  const symbols = [];
  const dynstrBytes = buf.subarray(elf.dynstr.offset, elf.dynstr.offset + elf.dynstr.size);
  for (const sym of users) {
    const target = REPLACEMENTS[sym.name];
    let newNameOff;
    if (sym.name.endsWith(target)) {
      // "strtol" is the tail of "__isoc23_strtol": just point past the prefix.
      newNameOff = sym.nameOff + (sym.name.length - target.length);
    } else if (sym.name.length === target.length) {
      // Same length ("__isoc23_sscanf" -> "__isoc99_sscanf"): rewrite the differing
      // bytes in .dynstr, but only if nothing else references a string that
      // contains them (a name starting at or before the last changed byte).
      const diffs = [...target].map((c, i) => i).filter((i) => target[i] !== sym.name[i]);
      const lastDiff = diffs[diffs.length - 1];
      const sharing = elf.strRefs.filter((r) => r.off >= sym.nameOff && r.off <= sym.nameOff + lastDiff && r.what !== `dynsym #${sym.index}`);
      if (sharing.length === 0) {
        const base = elf.dynstr.offset + sym.nameOff;
        for (const i of diffs) writes.push({ apply: (b) => (b[base + i] = target.charCodeAt(i)) });
        newNameOff = sym.nameOff;
      } else {
        // Shared string: only safe if the target name already exists somewhere.
        const at = dynstrBytes.indexOf(Buffer.from(`${target}\0`, 'latin1'));
        if (at < 0) return { problem: `"${sym.name}" shares its .dynstr bytes with ${sharing[0].what} and "${target}" is not in .dynstr` };
        newNameOff = at;
      }
    } else {
      const at = dynstrBytes.indexOf(Buffer.from(`${target}\0`, 'latin1'));
      if (at < 0) return { problem: `no way to name "${target}" in .dynstr` };
      newNameOff = at;
    }
    if (newNameOff !== sym.nameOff) {
      // Checked against the original bytes; the in-place rewrite above never moves names.
      if (elf.str(newNameOff) !== target) return { problem: `internal error locating "${target}"` };
      writes.push({ apply: (b) => b.writeUInt32LE(newNameOff, sym.entryOffset) });
    }
    writes.push({ apply: (b) => b.writeUInt16LE(VER_NDX_GLOBAL, sym.versymOffset) });
    symbols.push(`${sym.name} -> ${target}`);
  }
  // Nothing uses GLIBC_2.38 any more; mark the requirement weak so its absence is OK.
  for (const v of bad) writes.push({ apply: (b) => b.writeUInt16LE(v.flags | VER_FLG_WEAK, v.flagsOffset) });
  return { writes, symbols };
}

// ---------------------------------------------------------------------------------

function sha256(buf) {
  return createHash('sha256').update(buf).digest('hex');
}

function compareVersions(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] || 0) - (pb[i] || 0);
    if (d) return d;
  }
  return 0;
}

function firstLine(text) {
  const lines = String(text)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  // Node prints the source line and a caret first; the "Error: ..." line is the useful one.
  return lines.find((l) => /^\w*Error\b/.test(l)) || lines[0] || '(no error output)';
}
