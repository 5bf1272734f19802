// Drives the real `clada mcp` with the official MCP TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in package-lock.json beside this file):
// initialize, tools/list (every schema action, schemas valid), every tool
// called on real files, path escapes refused with nothing written, an
// unknown tool, invalid arguments, 200 sequential and 20 concurrent calls,
// one git commit per call (`clada undo` takes back the last), exec progress
// and cancellation, the client's roots, and a raw session: nothing but JSON
// on stdout and a clean exit when stdin closes.
//
//   CLADA_BIN=bazel-bin/proj/clada CLADA_MCP_NODE_MODULES=.../node_modules node sdk_client_test.mjs
//
// Prints one line per check; exits 1 on the first failure.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const bin = process.env.CLADA_BIN;
const modules = process.env.CLADA_MCP_NODE_MODULES;
if (!bin || !modules) {
  console.error('sdk_client_test: set CLADA_BIN and CLADA_MCP_NODE_MODULES');
  process.exit(2);
}
const sdk = (p) => import(pathToFileURL(path.join(modules, '@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { ListRootsRequestSchema } = await sdk('types.js');
const Ajv = (await import(pathToFileURL(path.join(modules, 'ajv/dist/ajv.js')).href)).default;

let checks = 0;
function check(ok, what, detail = '') {
  checks++;
  if (!ok) {
    console.error(`FAIL: ${what}${detail ? `\n  ${detail}` : ''}`);
    process.exit(1);
  }
  console.log(`ok ${checks} - ${what}`);
}
const text = (r) => (r.content ?? []).map((c) => c.text ?? '').join('\n');

// A project in a git repository, a sibling whose name starts with the root's,
// a file outside, and a symlink from inside to outside.
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'clada-sdk-')));
const root = path.join(tmp, 'proj');
const evil = path.join(tmp, 'proj-evil');
fs.mkdirSync(root);
fs.mkdirSync(evil);
fs.writeFileSync(path.join(tmp, 'outside.txt'), 'secret\n');
fs.symlinkSync(tmp, path.join(root, 'out'));
const git = (...args) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' });
git('init', '-q');
git('config', 'user.name', 't');
git('config', 'user.email', 't@t');
fs.writeFileSync(path.join(root, 'a.txt'), 'one\ntwo\nthree\n');
fs.writeFileSync(path.join(root, 'sham0.txt'), 'BG\n');
fs.writeFileSync(path.join(root, 'pic.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
git('add', '-A');
git('commit', '-qm', 'init');

async function connect(args, options = {}) {
  const transport = new StdioClientTransport({ command: bin, args: ['mcp', ...args], stderr: 'pipe' });
  const client = new Client({ name: 'clada-sdk-test', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  const errors = [];
  client.onerror = (e) => errors.push(String(e));
  if (options.roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: options.roots() }));
  await client.connect(transport);
  return { client, errors, transport };
}

// --- handshake and tools/list
const { client, errors } = await connect(['--root', root]);
check(client.getServerVersion()?.name === 'clada', 'initialize: serverInfo names clada');
check(/clada undo/.test(client.getServerVersion()?.description ?? ''), 'initialize: serverInfo.description (2025-11-25)');
check(client.getServerCapabilities()?.tools?.listChanged === false, 'capabilities: tools, listChanged false');
check(client.getServerCapabilities()?.logging !== undefined, 'capabilities: logging');
await client.ping();
check(true, 'ping');

const schema = JSON.parse(execFileSync(bin, ['schema'], { encoding: 'utf8' }));
const llmActions = Object.entries(schema.tools).filter(([, t]) => t.accessibility.includes('llm')).map(([n]) => n);
const listed = await client.listTools();
const { tools } = listed;
// Pagination (2025-11-25): every tool on the first page, so a client that
// never follows nextCursor sees them all; a cursor the server did not give
// is -32602 (the paginated path itself: server_test, tools_list_pages.jsonl).
check(listed.nextCursor === undefined, 'tools/list: one page, no nextCursor');
let cursorCode = 0;
try {
  await client.listTools({ cursor: 'not-a-cursor' });
} catch (e) {
  cursorCode = e.code;
}
check(cursorCode === -32602, 'tools/list with an invalid cursor: -32602', String(cursorCode));
const names = new Set(tools.map((t) => t.name));
const missing = llmActions.filter((n) => !names.has(n));
check(missing.length === 0, `tools/list: every schema action the LLM has (${llmActions.length})`, missing.join(', '));
for (const extra of ['apply_answer', 'dir_tree', 'file_info', 'allowed_roots', 'file_read_media', 'edit_file', 'undo_batch', 'log']) {
  check(names.has(extra), `tools/list: ${extra}`);
}
const ajv = new Ajv({ strict: false });
for (const t of tools) {
  ajv.compile(t.inputSchema);
  if (t.outputSchema) ajv.compile(t.outputSchema);
  const def = schema.tools[t.name];
  if (def) {
    const required = Object.entries(def.parameters).filter(([, p]) => p.required).map(([n]) => n).sort();
    const given = [...(t.inputSchema.required ?? [])].sort();
    if (JSON.stringify(required) !== JSON.stringify(given)) check(false, `${t.name}: required parameters`, given.join());
  }
}
check(true, `every inputSchema and outputSchema compiles (ajv), required as the schema says`);

// --- every tool, on real files
const calls = [
  ['file_write', { path: 'w.txt', content: 'alpha\nbeta\n' }],
  ['file_append', { path: 'w.txt', content: 'gamma\n' }],
  ['file_replace_text', { path: 'w.txt', old_text: 'alpha', new_text: 'ALPHA' }],
  ['file_replace_all_text', { path: 'w.txt', old_text: 'a\n', new_text: 'a.\n', count: 2 }],
  ['file_replace_text_range', { path: 'w.txt', old_text_start: 'beta', old_text_end: 'gamma', new_text: 'BG' }],
  ['files_replace_all_text', { paths: 'w.txt\nsham0.txt', old_text: 'BG', new_text: 'bg' }],
  ['file_replace_lines', { path: 'a.txt', lines: '2', new_content: 'TWO' }],
  ['file_apply_diff', { path: 'a.txt', diff: '@@ -1,3 +1,3 @@\n one\n-TWO\n+two\n three\n' }],
  ['file_apply_patch', { path: 'a.txt', patch: '@@\n one\n-two\n+2\n three\n' }],
  ['file_read_numbered', { path: 'a.txt', lines: '1-2' }],
  ['file_read', { path: 'a.txt' }],
  ['files_read', { paths: 'a.txt\nw.txt' }],
  ['dir_create', { path: 'd/e' }],
  ['file_move', { old_path: 'w.txt', new_path: 'd/w.txt' }],
  ['ls', { path: 'd' }],
  ['grep', { pattern: 'one', path: '.' }],
  ['glob', { pattern: '**/*.txt', base_path: '.' }],
  ['exec', { code: 'echo hello from exec', lang: 'bash' }],
  ['context_add', { path: 'a.txt' }],
  ['context_list', {}],
  ['context_remove', { path: 'a.txt' }],
  ['context_prune', {}],
  ['context_clear', {}],
  ['file_delete', { path: 'd/w.txt' }],
  ['dir_delete', { path: 'd', recursive: true }],
  ['apply_answer', { text: '#!SHAM [@three-char-SHA-256: k1]\naction = "file_write"\npath = "sham.txt"\ncontent = "s"\n#!END_SHAM_k1\n' }],
  ['dir_tree', { path: '.' }],
  ['file_info', { path: 'a.txt' }],
  ['allowed_roots', {}],
  ['file_read_media', { path: 'pic.png' }],
  ['edit_file', { path: 'a.txt', edits: [{ old_text: 'one', new_text: 'ONE' }, { old_text: 'three', new_text: '3' }], dry_run: true }],
  ['file_write', { path: 'undo-batch.txt', content: 'x' }],
  ['log', { limit: 3 }],
  ['undo_batch', {}],
];
const called = new Set();
for (const [name, args] of calls) {
  const r = await client.callTool({ name, arguments: args });
  called.add(name);
  check(!r.isError, `${name} succeeds`, text(r));
  const t = tools.find((x) => x.name === name);
  if (t?.outputSchema) check(r.structuredContent?.success !== false, `${name}: structuredContent (validated by the SDK)`);
}
const uncalled = [...names].filter((n) => !called.has(n));
check(uncalled.length === 0, 'every listed tool was called', uncalled.join(', '));
check(fs.readFileSync(path.join(root, 'a.txt'), 'utf8') === 'one\n2\nthree\n', 'edits reached the file');
check(fs.readFileSync(path.join(root, 'sham.txt'), 'utf8') === 's', 'apply_answer wrote its file');
check(!fs.existsSync(path.join(root, 'undo-batch.txt')), 'undo_batch took back the session\'s last batch');
const media = await client.callTool({ name: 'file_read_media', arguments: { path: 'pic.png' } });
check(media.content[0].type === 'image' && media.content[0].mimeType === 'image/png', 'an image comes back as image content');
const read = await client.callTool({ name: 'file_read', arguments: { path: 'a.txt' } });
check(read.structuredContent?.content === 'one\n2\nthree\n', 'file_read: structuredContent.content');

// --- path escapes: refused as tool errors, nothing written
const escapes = ['../x.txt', path.join(tmp, 'x.txt'), 'out/x.txt', '../proj-evil/x.txt', path.join(evil, 'x.txt'), '.git/x', '.clada/x'];
for (const p of escapes) {
  const r = await client.callTool({ name: 'file_write', arguments: { path: p, content: 'pwned' } });
  check(r.isError === true && /path_escape|path_denied/.test(text(r)), `file_write ${p} refused`, text(r));
}
const readOut = await client.callTool({ name: 'file_read', arguments: { path: '../outside.txt' } });
check(readOut.isError === true && !text(readOut).includes('secret'), 'file_read outside refused, nothing of it shown');
check(!fs.existsSync(path.join(tmp, 'x.txt')) && !fs.existsSync(path.join(evil, 'x.txt')), 'nothing written outside the root');
const tree = await client.callTool({ name: 'dir_tree', arguments: { path: '../proj-evil' } });
check(tree.isError === true, 'dir_tree of a sibling with the root as prefix refused');

// --- unknown tool, invalid arguments
let code = 0;
try {
  await client.callTool({ name: 'no_such_tool', arguments: {} });
} catch (e) {
  code = e.code;
}
check(code === -32602, 'unknown tool: -32602', String(code));
const bad = await client.callTool({ name: 'file_write', arguments: { path: 3 } });
check(bad.isError === true && /invalid arguments for file_write/.test(text(bad)), 'invalid arguments: an isError result naming them', text(bad));

// --- one call, one batch: an AI commit each; `clada undo` takes back the last call
const before = git('rev-list', '--count', 'HEAD').trim();
await client.callTool({ name: 'file_write', arguments: { path: 'undo-me.txt', content: 'u' } });
check(Number(git('rev-list', '--count', 'HEAD').trim()) === Number(before) + 1, 'a call is one AI commit');
execFileSync(bin, ['undo', '--root', root], { encoding: 'utf8', stdio: 'pipe' });
check(!fs.existsSync(path.join(root, 'undo-me.txt')), 'clada undo takes back the last call');

// --- 200 sequential (a server without git: the protocol path, not 200 git batches), 20 concurrent
const plain = await connect(['--root', root, '--no-git']);
let t0 = Date.now();
for (let i = 0; i < 200; i++) {
  const r = await plain.client.callTool({ name: 'file_read', arguments: { path: 'a.txt' } });
  if (r.isError) check(false, `sequential call ${i}`, text(r));
}
check(true, `200 sequential calls (${Date.now() - t0} ms)`);
await plain.client.close();
t0 = Date.now();
const many = await Promise.all(
  Array.from({ length: 20 }, (_, i) => client.callTool({ name: 'file_write', arguments: { path: `c/${i}.txt`, content: `${i}` } })),
);
check(many.every((r) => !r.isError), `20 concurrent calls (${Date.now() - t0} ms)`);
check(Array.from({ length: 20 }, (_, i) => fs.readFileSync(path.join(root, `c/${i}.txt`), 'utf8') === `${i}`).every(Boolean),
  'each concurrent write landed');

// --- exec: progress notifications with its output; cancellation
const progress = [];
const streamed = await client.callTool({ name: 'exec', arguments: { code: 'echo first; sleep 0.2; echo second', lang: 'bash' } },
  undefined, { onprogress: (p) => progress.push(p) });
check(!streamed.isError && progress.length >= 1 && progress.map((p) => p.message).join('').includes('first'),
  'exec with a progressToken: notifications/progress carry its output', JSON.stringify(progress));
const controller = new AbortController();
const marker = path.join(tmp, 'cancel-marker');
const slow = client.callTool({ name: 'exec', arguments: { code: `sleep 0.3; touch ${marker}.started; sleep 30; touch ${marker}`, lang: 'bash' } },
  undefined, { signal: controller.signal });
for (let i = 0; i < 100 && !fs.existsSync(`${marker}.started`); i++) await new Promise((r) => setTimeout(r, 20));
t0 = Date.now();
controller.abort('test');
let aborted = false;
try { await slow; } catch { aborted = true; }
await client.ping();  // the server still answers
const afterCancel = await client.callTool({ name: 'file_read', arguments: { path: 'a.txt' } });
check(aborted && !afterCancel.isError && Date.now() - t0 < 10000, `cancelled exec stopped (next call answered after ${Date.now() - t0} ms)`);
await new Promise((r) => setTimeout(r, 100));
check(!fs.existsSync(marker), 'the cancelled process group was killed');

check(errors.length === 0, 'the client saw no protocol error (stdout held only JSON-RPC)', errors.join('\n'));
await client.close();

// --- the client's roots: they replace --root (intersected with --allow when given)
const other = path.join(tmp, 'other');
fs.mkdirSync(other);
let roots = [{ uri: pathToFileURL(other).href, name: 'other' }];
const rooted = await connect(['--root', root, '--no-git'], { capabilities: { roots: { listChanged: true } }, roots: () => roots });
let allowed = await rooted.client.callTool({ name: 'allowed_roots', arguments: {} });
check(allowed.structuredContent?.working_root === other && allowed.structuredContent?.source === 'client', "the client's roots are the roots",
  JSON.stringify(allowed.structuredContent));
const inOther = await rooted.client.callTool({ name: 'file_write', arguments: { path: 'r.txt', content: 'r' } });
check(!inOther.isError && fs.existsSync(path.join(other, 'r.txt')), 'relative paths start at the first client root');
const inRoot = await rooted.client.callTool({ name: 'file_write', arguments: { path: path.join(root, 'no.txt'), content: 'n' } });
check(inRoot.isError === true && !fs.existsSync(path.join(root, 'no.txt')), '--root is not reachable when the client gives other roots');
roots = [{ uri: pathToFileURL(root).href }];
await rooted.client.sendRootsListChanged();
for (let i = 0; i < 50; i++) {
  allowed = await rooted.client.callTool({ name: 'allowed_roots', arguments: {} });
  if (allowed.structuredContent?.working_root === root) break;
  await new Promise((r) => setTimeout(r, 20));
}
check(allowed.structuredContent?.working_root === root, 'notifications/roots/list_changed: the new roots apply');
await rooted.client.close();
const limited = await connect(['--root', root, '--allow', path.join(tmp, 'proj-evil'), '--no-git'],
  { capabilities: { roots: {} }, roots: () => [{ uri: pathToFileURL(other).href }] });
const refused = await limited.client.callTool({ name: 'file_read', arguments: { path: 'a.txt' } });
check(refused.isError === true && /none of the client's roots/.test(text(refused)), 'with --allow, a client root outside it is refused', text(refused));
await limited.client.close();

// --- raw: only JSON on stdout, clean exit when stdin closes
const raw = spawn(bin, ['mcp', '--root', root, '--no-git'], { stdio: ['pipe', 'pipe', 'pipe'] });
let out = '';
raw.stdout.on('data', (d) => { out += d; });
raw.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n');
raw.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
raw.stdin.write('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"exec","arguments":{"code":"echo to-stdout; echo to-stderr >&2","lang":"bash"}}}\n');
raw.stdin.write('not json\n');
raw.stdin.end();
const exit = await new Promise((resolve) => raw.on('close', (c, s) => resolve({ c, s })));
check(exit.c === 0, 'clean exit (0) when stdin closes', JSON.stringify(exit));
const lines = out.split('\n').filter((l) => l !== '');
check(lines.length === 3 && lines.every((l) => { try { return JSON.parse(l).jsonrpc === '2.0'; } catch { return false; } }),
  'stdout: one JSON-RPC message a line, nothing else', out);
check(JSON.parse(lines[0]).result.protocolVersion === '2025-06-18', 'an older protocol version is accepted');

fs.rmSync(tmp, { recursive: true, force: true });
console.log(`all ${checks} checks passed`);
