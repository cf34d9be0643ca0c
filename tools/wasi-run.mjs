// Runs a WASI (preview1) program under Node's `node:wasi`, with its arguments: the same V8 that
// Envoy embeds. Used by tools/wasm-verdicts.sh. usage: node tools/wasi-run.mjs PROGRAM.wasm [ARGS...]
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';

const [file, ...args] = process.argv.slice(2);
const wasi = new WASI({ version: 'preview1', args: [file, ...args], env: {}, returnOnExit: true });
const module = await WebAssembly.compile(await readFile(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
process.exitCode = wasi.start(instance);
