#!/usr/bin/env node
// The `clada` command of the npm package: runs the native binary built for
// this platform (vendor/<target triple>/clada), as @openai/codex's launcher
// does, with stdio, exit status and signals passed through. CLADA_BINARY_PATH
// names another binary to run (an escape hatch when this package carries
// none for the platform).
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');

const TARGETS = {
  'linux-x64': 'x86_64-unknown-linux-gnu',
};

function binaryPath() {
  const override = process.env.CLADA_BINARY_PATH;
  if (override) return override;
  const key = `${process.platform}-${process.arch}`;
  const triple = TARGETS[key];
  if (!triple) {
    process.stderr.write(
      `clada: this package has no binary for ${process.platform} ${process.arch}; it carries ` +
        `${Object.keys(TARGETS).join(', ')}. Build clada from source (bazel build //proj:clada) and set ` +
        `CLADA_BINARY_PATH to it.\n`);
    process.exit(1);
  }
  const file = path.join(__dirname, '..', 'vendor', triple, 'clada');
  if (!fs.existsSync(file)) {
    process.stderr.write(`clada: the binary ${file} is missing from this package; reinstall it.\n`);
    process.exit(1);
  }
  return file;
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: 'inherit' });
child.on('error', (err) => {
  process.stderr.write(`clada: cannot start ${err.path || 'the binary'}: ${err.message}\n`);
  process.exit(1);
});
// Signals sent to this process (Ctrl-C in `clada listen`, a host stopping
// `clada mcp`) go to the binary; this process exits as it does.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (!child.killed) child.kill(signal);
  });
}
child.on('exit', (code, signal) => {
  if (signal) {
    // Die of the same signal (our handler off first, else it would catch it).
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code ?? 1);
  }
});
