// Which Content-Type does Chromium put on a file part of a multipart/form-data upload?
//
// It asks a real Chromium instead of trusting memory: the browser picks the type from the file
// name's extension, first from its own built-in tables and then (Linux) from the freedesktop
// shared-mime-info database of the machine (/usr/share/mime), so the answer depends on both the
// Chromium build and the shared-mime-info package. For every file it reports
//   input_type:     input.files[i].type as the page sees it ("" = the browser knows no type)
//   multipart_type: the Content-Type of that file's part in the form POST the browser really
//                   sent to a local server (application/octet-stream when input_type is "")
// make_benign_files.py records the result in its EXTENSION_TYPES.
//
// Run (Debian; no cargo, no network besides the npm registry for the install):
//   apt-get install -y chromium
//   mkdir -p /tmp/pw && cd /tmp/pw && npm init -y >/dev/null && npm install playwright-core
//   cd /tmp/pw && node /path/to/tests/python/chromium_file_types.mjs [DIR] > types.json
// With DIR (e.g. the output directory of make_benign_files.py) it uploads the files in DIR;
// without it, empty files named sample.EXT for the extensions listed below. playwright-core is
// resolved from the current directory (or $PLAYWRIGHT_DIR); the browser is $CHROMIUM or
// /usr/bin/chromium. The server listens on 127.0.0.1 only and the script stops by itself.

import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";

const require = createRequire(path.join(process.env.PLAYWRIGHT_DIR ?? process.cwd(), "x.js"));
const { chromium } = require("playwright-core");

const EXTENSIONS = [
  "docx", "xlsx", "pptx", "odt", "ods", "epub", "png", "jpg", "gif", "webp", "tiff", "ico",
  "bmp", "pdf", "7z", "jar", "apk", "whl", "zip", "tar.gz", "rar", "exe", "doc", "xls", "msg",
  "mp4", "mp3", "sqlite", "wasm", "woff2", "bz2", "xz", "dmg", "parquet", "csv", "txt", "json",
  "svg", "html", "md",
];

function inputFiles() {
  const dir = process.argv[2];
  if (dir) {
    return fs.readdirSync(dir).sort()
      .map((n) => path.join(dir, n))
      .filter((p) => fs.statSync(p).isFile());
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "chromium-types-"));
  return EXTENSIONS.map((ext) => {
    const p = path.join(tmp, `sample.${ext}`);
    fs.writeFileSync(p, "");
    return p;
  });
}

// Splits a multipart/form-data body into {filename, contentType} of its file parts.
function fileParts(body, contentType) {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!m) throw new Error(`no boundary in ${contentType}`);
  const delim = Buffer.from(`--${m[1] ?? m[2]}`);
  const parts = [];
  let at = body.indexOf(delim);
  while (at >= 0) {
    const start = at + delim.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const next = body.indexOf(delim, start);
    const headEnd = body.indexOf("\r\n\r\n", start);
    const head = body.subarray(start + 2, headEnd).toString("utf8");
    const disp = /filename="([^"]*)"/i.exec(head);
    const type = /^content-type:\s*(.*)$/im.exec(head);
    if (disp) parts.push({ filename: disp[1], contentType: type ? type[1].trim() : null });
    at = next;
  }
  return parts;
}

function version(cmd, args) {
  try { return execFileSync(cmd, args, { encoding: "utf8" }).trim(); } catch { return null; }
}

const files = inputFiles();
let received = null;
const server = http.createServer((req, res) => {
  if (req.method === "POST") {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      received = fileParts(Buffer.concat(chunks), req.headers["content-type"]);
      res.end("ok");
    });
    return;
  }
  res.setHeader("content-type", "text/html; charset=utf-8");
  res.end('<!doctype html><form method="post" action="/upload" enctype="multipart/form-data">' +
    '<input type="file" name="f" multiple><button type="submit">send</button></form>');
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/`;

const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run"],
  timeout: 60_000,
});
try {
  const page = await browser.newPage();
  await page.goto(url);
  await page.setInputFiles("input[type=file]", files);
  const seen = await page.$eval("input[type=file]",
    (el) => Array.from(el.files, (f) => ({ name: f.name, type: f.type })));
  await Promise.all([page.waitForURL("**/upload"), page.click("button")]);
  const sent = new Map((received ?? []).map((p) => [p.filename, p.contentType]));
  const out = {
    chromium: browser.version(),
    chromium_package: version("dpkg-query", ["-W", "-f=${Version}", "chromium"]),
    shared_mime_info: version("dpkg-query", ["-W", "-f=${Version}", "shared-mime-info"]),
    files: seen.map((f) => ({
      name: f.name,
      input_type: f.type,
      multipart_type: sent.get(f.name) ?? null,
    })),
  };
  process.stdout.write(JSON.stringify(out, null, 1) + "\n");
} finally {
  await browser.close();
  server.close();
}
