// Benchmark of `clada mcp` through the official SDK client, side by side with
// the reference filesystem server (@modelcontextprotocol/server-filesystem)
// and a floor server that answers without doing anything (the client's own
// cost), once with a token answer and once with clada's own bytes (what the
// client spends on clada's richer answer, apart from the server's time).
// Run by tools/bench-mcp.sh; prints a table and the ratios.
//
//   CLADA_BIN=... CLADA_MCP_NODE_MODULES=.../node_modules node bench.mjs [STARTS] [CALLS]
import child_process from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const bin = process.env.CLADA_BIN;
const modules = process.env.CLADA_MCP_NODE_MODULES;
const starts = Number(process.argv[2] ?? 20);
const calls = Number(process.argv[3] ?? 1000);
const sdk = (p) => import(pathToFileURL(path.join(modules, '@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'clada-bench-mcp-')));
fs.writeFileSync(path.join(dir, 'f.txt'), 'x'.repeat(1023) + '\n');  // 1 KB

// The floor: answers initialize, tools/list and every call at once.
const floorJs = path.join(dir, 'floor.mjs');
fs.writeFileSync(floorJs, `
import readline from 'node:readline';
const rl = readline.createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'floor', version: '0' } } });
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'file_read', inputSchema: { type: 'object' } }] } });
  else send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'x' }] } });
});`);

// The same floor, answering with clada's own bytes: its tools/list (the
// outputSchema the client then checks every structuredContent against) and
// its file_read result. What clada costs beyond this is the server's time;
// the rest is the client's, for a richer answer than the floor's.
const replies = child_process.spawnSync(bin, ['mcp', '--root', dir, '--no-git'], {
  input: [
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'file_read', arguments: { path: 'f.txt' } } },
  ].map((m) => JSON.stringify(m) + '\n').join(''),
}).stdout.toString().trim().split('\n').map((l) => JSON.parse(l));
fs.writeFileSync(path.join(dir, 'replies.json'), JSON.stringify({ list: replies[1].result, call: replies[2].result }));
const sameJs = path.join(dir, 'floor-same.mjs');
fs.writeFileSync(sameJs, `
import child_process from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
const { list, call } = JSON.parse(fs.readFileSync(${JSON.stringify(path.join(dir, 'replies.json'))}, 'utf8'));
const rl = readline.createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'floor', version: '0' } } });
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: list });
  else send({ jsonrpc: '2.0', id: m.id, result: call });
});`);

const reference = path.join(modules, '@modelcontextprotocol/server-filesystem/dist/index.js');
const servers = {
  clada: { command: bin, args: ['mcp', '--root', dir, '--no-git'], call: { name: 'file_read', arguments: { path: 'f.txt' } } },
  reference: { command: process.execPath, args: [reference, dir], call: { name: 'read_text_file', arguments: { path: path.join(dir, 'f.txt') } } },
  floor: { command: process.execPath, args: [floorJs], call: { name: 'file_read', arguments: {} } },
  'floor+same': { command: process.execPath, args: [sameJs], call: { name: 'file_read', arguments: { path: 'f.txt' } } },
};

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;

async function connect(s) {
  const transport = new StdioClientTransport({ command: s.command, args: s.args, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1' }, { capabilities: {} });
  const t = process.hrtime.bigint();
  await client.connect(transport);  // spawn, initialize answered, initialized sent
  return { client, transport, startup: ms(t) };
}

const results = {};
for (const [name, s] of Object.entries(servers)) {
  const startup = [];
  for (let i = 0; i < starts; i++) {
    const c = await connect(s);
    startup.push(c.startup);
    await c.client.close();
  }
  const c = await connect(s);
  await c.client.listTools();
  for (let i = 0; i < 50; i++) await c.client.callTool(s.call);  // warm-up
  const lat = [];
  for (let i = 0; i < calls; i++) {
    const t = process.hrtime.bigint();
    const r = await c.client.callTool(s.call);
    lat.push(ms(t));
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r)}`);
  }
  let rss = NaN;
  try {
    const status = fs.readFileSync(`/proc/${c.transport.pid}/status`, 'utf8');
    rss = Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
  } catch {}
  await c.client.close();
  results[name] = { startup: median(startup), call: median(lat), p90: [...lat].sort((a, b) => a - b)[Math.floor(lat.length * 0.9)], rss };
}
fs.rmSync(dir, { recursive: true, force: true });

const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
console.log(`starts: ${starts}, calls: ${calls} (file_read of a 1 KB file; medians; rss after the calls)`);
console.log('server      start-up ms   call ms (median)   call ms (p90)   RSS MB');
for (const [name, r] of Object.entries(results)) {
  console.log(`${name.padEnd(10)}  ${f(r.startup, 1).padStart(11)}   ${f(r.call, 3).padStart(16)}   ${f(r.p90, 3).padStart(13)}   ${f(r.rss, 1).padStart(6)}`);
}
const c = results.clada, ref = results.reference, fl = results.floor, same = results['floor+same'];
console.log(`start-up: reference / clada = ${f(ref.startup / c.startup, 1)}x (target >= 20x)`);
console.log(`file_read: reference / clada = ${f(ref.call / c.call, 2)}x (target >= 3x); clada / floor = ${f(c.call / fl.call, 2)}x (target <= 1.3x)`);
console.log(`file_read: clada / floor answering clada's bytes = ${f(c.call / same.call, 2)}x (the server's own cost); that floor / floor = ${f(same.call / fl.call, 2)}x (the client's, for clada's answer)`);
console.log(`clada idle RSS: ${f(c.rss, 1)} MB (target < 20 MB)`);
