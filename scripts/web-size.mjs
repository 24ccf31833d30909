#!/usr/bin/env node
// Weighs the built dashboard: the JavaScript and CSS a browser fetches on first load (the entry,
// everything it imports statically, and the landing page's chunk with its imports), gzipped as
// served, against the budget of 300 KB of JavaScript. Exits 1 over budget. Reads dist/web and the
// manifest Vite writes there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dir = process.argv[2] ?? 'dist/web';
const BUDGET_KB = 300;
const manifest = JSON.parse(readFileSync(join(dir, '.vite/manifest.json'), 'utf8'));

const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
if (!entryKey) throw new Error(`no entry in ${dir}/.vite/manifest.json`);
// The page a signed-in user lands on.
const landingKey = Object.keys(manifest).find((k) => /pages\/Overview\.tsx$/.test(k));

function closure(key, seen = new Set()) {
  if (!key || seen.has(key)) return seen;
  seen.add(key);
  for (const dep of manifest[key].imports ?? []) closure(dep, seen);
  return seen;
}

const gz = (file) => gzipSync(readFileSync(join(dir, file)), { level: 9 }).length;
const kb = (bytes) => (bytes / 1024).toFixed(1);

function weigh(keys) {
  let js = 0;
  let css = 0;
  const files = new Set();
  for (const key of keys) {
    const chunk = manifest[key];
    files.add(chunk.file);
    for (const c of chunk.css ?? []) files.add(c);
  }
  for (const file of files) (file.endsWith('.css') ? (css += gz(file)) : (js += gz(file)));
  return { js, css };
}

const shell = weigh(closure(entryKey));
const first = weigh(closure(landingKey, closure(entryKey)));
const pages = Object.keys(manifest)
  .filter((k) => /pages\/[A-Za-z]+\.tsx$/.test(k))
  .map((k) => ({ page: k.replace(/^.*pages\/|\.tsx$/g, ''), ...weigh(new Set([...closure(k)].filter((c) => !closure(entryKey).has(c)))) }))
  .sort((a, b) => b.js - a.js);

console.log(`dashboard build in ${dir} (gzipped, as served):`);
console.log(`  shell (login, layout, client):      ${kb(shell.js)} KB JS, ${kb(shell.css)} KB CSS`);
console.log(`  first load (shell + Overview):      ${kb(first.js)} KB JS, ${kb(first.css)} KB CSS   budget ${BUDGET_KB} KB JS`);
for (const p of pages) console.log(`  page ${p.page.padEnd(12)} on top of the shell: ${kb(p.js)} KB JS, ${kb(p.css)} KB CSS`);
if (first.js / 1024 > BUDGET_KB) {
  console.error(`first load is ${kb(first.js)} KB of JavaScript, over the ${BUDGET_KB} KB budget`);
  process.exit(1);
}
