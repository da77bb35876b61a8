'use strict';
// Records a .cpuprofile from Debian's chromium through the DevTools
// protocol over --remote-debugging-pipe (no network): Profiler.enable,
// Profiler.start, load page.html, wait until its title is "done",
// Profiler.stop, and write the profile the protocol returns.
//
//   node record-devtools.js OUT.cpuprofile [INTERVAL_US]
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const out = process.argv[2];
const interval = Number(process.argv[3] || 1000);
const page = 'file://' + path.join(__dirname, 'page.html');
const userData = fs.mkdtempSync(path.join(os.tmpdir(), 'pfold-chromium-'));

const chrome = spawn('chromium', [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run',
  '--user-data-dir=' + userData, '--remote-debugging-pipe', 'about:blank',
], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });

const toChrome = chrome.stdio[3];
const fromChrome = chrome.stdio[4];
let nextId = 1;
const pending = new Map();
const waiters = [];
let buf = Buffer.alloc(0);
fromChrome.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  let i;
  while ((i = buf.indexOf(0)) >= 0) {
    const msg = JSON.parse(buf.subarray(0, i).toString('utf8'));
    buf = buf.subarray(i + 1);
    if (msg.id && pending.has(msg.id)) {
      const { resolve, reject } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) reject(new Error(JSON.stringify(msg.error)));
      else resolve(msg.result);
    } else if (msg.method) {
      for (const w of waiters.splice(0)) w(msg);
    }
  }
});
function send(method, params = {}, sessionId) {
  const id = nextId++;
  const msg = { id, method, params };
  if (sessionId) msg.sessionId = sessionId;
  toChrome.write(JSON.stringify(msg) + '\0');
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const { targetInfos } = await send('Target.getTargets');
  const target = targetInfos.find((t) => t.type === 'page');
  const { sessionId } = await send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
  await send('Page.enable', {}, sessionId);
  await send('Profiler.enable', {}, sessionId);
  await send('Profiler.setSamplingInterval', { interval }, sessionId);
  await send('Profiler.start', {}, sessionId);
  await send('Page.navigate', { url: page }, sessionId);
  for (let i = 0; i < 200; i++) {
    const r = await send('Runtime.evaluate', { expression: 'document.title', returnByValue: true }, sessionId);
    if (r.result.value === 'done') break;
    await sleep(50);
  }
  const { profile } = await send('Profiler.stop', {}, sessionId);
  fs.writeFileSync(out, JSON.stringify(profile));
  await send('Browser.close');
}
main().catch((e) => { console.error(e); process.exitCode = 1; }).finally(() => {
  setTimeout(() => { chrome.kill(); fs.rmSync(userData, { recursive: true, force: true }); }, 500);
});
