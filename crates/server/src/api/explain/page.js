// utf8gate's explain page. Sends the input's bytes to /v1/scan?explain=true and shows the
// answer. Untrusted text only ever enters the page through textContent, never as markup;
// invisible and direction-changing characters and bytes that are not UTF-8 are shown as
// their code points or hex, so the page cannot be made to read differently from what it is.
"use strict";

const $ = (id) => document.getElementById(id);
const LINK_MAX_BYTES = 4096;
let input = null; // { bytes, from } when the input came from a link or a file

function el(tag, text, attrs) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
}

const hex2 = (b) => b.toString(16).toUpperCase().padStart(2, "0");
const hexOf = (bytes) => Array.from(bytes, hex2).join(" ");
const utf8 = new TextDecoder("utf-8");
const INVISIBLE = /^[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]$/u;

// The length of the valid UTF-8 sequence at bytes[i] (RFC 3629 §4), or 0.
function sequenceLength(b, i) {
  const c = b[i];
  if (c < 0x80) return 1;
  let n, lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) { n = 3; if (c === 0xe0) lo = 0xa0; if (c === 0xed) hi = 0x9f; }
  else if (c >= 0xf0 && c <= 0xf4) { n = 4; if (c === 0xf0) lo = 0x90; if (c === 0xf4) hi = 0x8f; }
  else return 0;
  if (i + n > b.length || b[i + 1] < lo || b[i + 1] > hi) return 0;
  for (let k = 2; k < n; k++) if (b[i + k] < 0x80 || b[i + k] > 0xbf) return 0;
  return n;
}

// The bytes as display tokens: characters, invisible characters as ⟨U+XXXX⟩, bytes that are
// not UTF-8 as ⟨C0⟩. Each token: { text, plain }.
function tokens(bytes) {
  const out = [];
  for (let i = 0; i < bytes.length;) {
    const n = sequenceLength(bytes, i);
    if (n === 0) { out.push({ text: "⟨" + hex2(bytes[i]) + "⟩", plain: false }); i += 1; continue; }
    const ch = utf8.decode(bytes.subarray(i, i + n));
    if (ch !== "\n" && ch !== "\t" && INVISIBLE.test(ch)) {
      const cp = ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
      out.push({ text: "⟨U+" + cp + "⟩", plain: false });
    } else out.push({ text: ch, plain: true });
    i += n;
  }
  return out;
}

// Appends the tokens of `bytes` to `parent`, escapes in their own spans.
function appendTokens(parent, bytes) {
  let run = "";
  const flush = () => { if (run) parent.appendChild(document.createTextNode(run)); run = ""; };
  for (const t of tokens(bytes)) {
    if (t.plain) { run += t.text; continue; }
    flush();
    parent.appendChild(el("span", t.text, { class: "esc" }));
  }
  flush();
}

function fromBase64(text) {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

// %XX as bytes, everything else as its UTF-8 (a link's `text`).
function percentBytes(text) {
  const out = [];
  const enc = new TextEncoder();
  for (let i = 0; i < text.length;) {
    const m = /^%([0-9A-Fa-f]{2})/.exec(text.slice(i, i + 3));
    if (m) { out.push(parseInt(m[1], 16)); i += 3; continue; }
    const ch = String.fromCodePoint(text.codePointAt(i));
    out.push(...enc.encode(ch));
    i += ch.length;
  }
  return new Uint8Array(out);
}

function percentText(bytes) {
  let s = "";
  for (const b of bytes) {
    s += (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a)
      ? String.fromCharCode(b) : "%" + hex2(b);
  }
  return s;
}

function currentBytes() {
  return input ? input.bytes : new TextEncoder().encode($("text").value);
}

function setInput(bytes, from) {
  input = { bytes, from };
  $("text").value = tokens(bytes).map((t) => t.text).join("");
  const note = $("source");
  note.textContent = `Showing ${bytes.length} bytes from ${from} (bytes that are not UTF-8 as ⟨hex⟩). Editing the text replaces them.`;
  note.hidden = false;
}

function linkFor(bytes) {
  if (bytes.length > LINK_MAX_BYTES) return null;
  const p = [["text", percentText(bytes)], ["profile", $("profile").value], ["location", $("location").value]];
  return "#" + p.filter(([, v]) => v).map(([k, v]) => k + "=" + (k === "text" ? v : encodeURIComponent(v))).join("&");
}

function tooltipText(f) {
  const what = f.run ? `a run of ${f.run} adjacent, the first ${f.bytes}` : f.bytes;
  const lines = [`${f.kind} (${f.severity}), action ${f.action}`, `offset ${f.offset}, ${f.length} bytes: ${what}`];
  lines.push("lax reading: " + (f.lax_scalar || "none"));
  lines.push(f.message);
  return lines.join("\n");
}

// The text with one highlight per group of overlapping marks.
function renderMarked(bytes, data) {
  const box = $("marked");
  box.replaceChildren();
  const marks = data.explain.marks.slice().sort((a, b) => a.start - b.start || b.end - a.end);
  const groups = [];
  for (const m of marks) {
    const last = groups[groups.length - 1];
    if (last && m.start < last.end) { last.end = Math.max(last.end, m.end); last.marks.push(m); }
    else groups.push({ start: m.start, end: m.end, marks: [m] });
  }
  let at = 0;
  groups.forEach((g, i) => {
    appendTokens(box, bytes.subarray(at, g.start));
    const wrap = el("span", null, { class: "hl" });
    const mark = el("mark", null, { tabindex: "0", id: "mark-" + i, "aria-describedby": "tip-" + i });
    appendTokens(mark, bytes.subarray(g.start, g.end));
    const tip = el("span", g.marks.map((m) => tooltipText(data.findings[m.finding])).join("\n\n"),
      { class: "tip", role: "tooltip", id: "tip-" + i });
    wrap.append(mark, tip);
    box.appendChild(wrap);
    at = g.end;
  });
  appendTokens(box, bytes.subarray(at));
  if (bytes.length === 0) box.textContent = "(empty)";
}

function where(location) {
  return [location.part, location.name, location.pointer].filter((x) => x !== undefined).join(" ");
}

function renderFindings(data) {
  const body = $("findings").tBodies[0];
  body.replaceChildren();
  data.findings.forEach((f, i) => {
    const row = el("tr");
    for (const v of [i + 1, f.kind, f.action, where(f.location), f.offset, f.run ? `${f.bytes} (×${f.run})` : f.bytes, f.lax_scalar || "", f.message]) {
      row.appendChild(el("td", String(v)));
    }
    body.appendChild(row);
  });
  if (data.findings.length === 0) body.appendChild(el("tr")).appendChild(el("td", "No findings.", { colspan: "8" }));
}

function renderHex(data) {
  const box = $("hex");
  box.replaceChildren();
  for (const m of data.explain.marks) {
    const f = data.findings[m.finding];
    box.appendChild(el("p", `Finding ${m.finding + 1}, ${f.kind}: bytes ${m.start} to ${m.end - 1} (window from byte ${m.window_start})`));
    const code = el("code", null, { class: "hex" });
    const cells = m.window_hex.split(" ");
    const from = m.start - m.window_start, to = m.end - m.window_start;
    code.append(cells.slice(0, from).join(" ") + (from ? " " : ""));
    code.appendChild(el("strong", cells.slice(from, to).join(" ")));
    code.append((to < cells.length ? " " : "") + cells.slice(to).join(" "));
    box.appendChild(code);
  }
  if (data.explain.marks.length === 0) box.appendChild(el("p", "No finding in the text."));
}

// A token diff (longest common subsequence; prefix and suffix only for large inputs).
function diff(a, b) {
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  const x = a.slice(p, a.length - s), y = b.slice(p, b.length - s);
  const ops = [["=", a.slice(0, p)]];
  if (x.length * y.length > 4000000) ops.push(["-", x], ["+", y]);
  else {
    const w = y.length + 1, t = new Uint32Array((x.length + 1) * w);
    for (let i = x.length - 1; i >= 0; i--) for (let j = y.length - 1; j >= 0; j--)
      t[i * w + j] = x[i] === y[j] ? t[(i + 1) * w + j + 1] + 1 : Math.max(t[(i + 1) * w + j], t[i * w + j + 1]);
    let i = 0, j = 0;
    while (i < x.length || j < y.length) {
      if (i < x.length && j < y.length && x[i] === y[j]) { ops.push(["=", [x[i]]]); i++; j++; }
      else if (j < y.length && (i === x.length || t[i * w + j + 1] >= t[(i + 1) * w + j])) { ops.push(["+", [y[j]]]); j++; }
      else { ops.push(["-", [x[i]]]); i++; }
    }
  }
  ops.push(["=", a.slice(a.length - s)]);
  // Deletions before insertions, each change one run.
  const merged = [];
  for (const [op, run] of ops) {
    if (run.length === 0) continue;
    const last = merged[merged.length - 1];
    if (op !== "=" && last && last[0] !== "=") {
      const ins = merged[merged.length - 1][0] === "+" ? merged.pop() : ["+", []];
      const del = merged.length && merged[merged.length - 1][0] === "-" ? merged.pop() : ["-", []];
      const into = op === "-" ? del : ins;
      into[1] = into[1].concat(run);
      merged.push(del, ins);
    } else if (last && last[0] === op) last[1] = last[1].concat(run);
    else merged.push([op, run]);
  }
  return merged;
}

function renderSanitized(bytes, data) {
  const out = $("sanitized"), d = $("diff");
  out.replaceChildren();
  d.replaceChildren();
  if (data.explain.sanitized_base64 === null) {
    out.textContent = "Not sanitized: the profile rejects this text (/v1/sanitize answers 422).";
    d.textContent = "No difference to show.";
    return;
  }
  const clean = fromBase64(data.explain.sanitized_base64);
  appendTokens(out, clean);
  const a = tokens(bytes).map((t) => t.text), b = tokens(clean).map((t) => t.text);
  const tag = { "=": null, "-": "del", "+": "ins" };
  for (const [op, run] of diff(a, b)) {
    if (run.length === 0) continue;
    if (tag[op] === null) d.append(run.join(""));
    else d.appendChild(el(tag[op], run.join("")));
  }
  if (a.join("") === b.join("")) d.textContent = "Unchanged.";
}

function render(bytes, data) {
  const summary = $("summary");
  summary.replaceChildren(
    "Decision: ", el("span", data.decision, { id: "decision", class: "decision-" + data.decision }),
    ` (profile ${data.profile}${data.enforced ? "" : ", monitor mode: not enforced"}), ` +
    `${data.findings.length} finding${data.findings.length === 1 ? "" : "s"}` +
    `${data.findings_truncated ? " listed, more not" : ""}, ${data.explain.marks.length} in the text, ` +
    `${bytes.length} bytes read as ${data.explain.location}.`);
  renderMarked(bytes, data);
  renderFindings(data);
  renderHex(data);
  renderSanitized(bytes, data);
  const link = linkFor(bytes);
  $("share").hidden = link === null;
  if (link !== null) { $("share").setAttribute("href", link); history.replaceState(null, "", link); }
  $("result").hidden = false;
}

async function explain() {
  const bytes = currentBytes();
  const status = $("status");
  status.textContent = "Scanning…";
  document.body.dataset.state = "busy";
  const q = new URLSearchParams({ explain: "true", location: $("location").value });
  if ($("profile").value) q.set("profile", $("profile").value);
  try {
    const response = await fetch("/v1/scan?" + q, {
      method: "POST", headers: { "content-type": "application/octet-stream" }, body: bytes,
    });
    const data = await response.json();
    if (!response.ok) {
      status.textContent = `Error ${response.status}: ${data.title || ""}. ${data.detail || ""}`;
      document.body.dataset.state = "error";
      return;
    }
    render(bytes, data);
    status.textContent = `Done: ${data.decision}.`;
    document.body.dataset.state = "done";
  } catch (e) {
    status.textContent = "The scan failed: " + e;
    document.body.dataset.state = "error";
  }
}

async function loadProfiles(wanted) {
  const select = $("profile");
  let names = [];
  try {
    const doc = await (await fetch("/openapi.json")).json();
    const p = doc.paths["/v1/scan"].post.parameters.find((x) => x.name === "profile");
    names = p.schema.enum || [];
  } catch (e) { /* the default option stays */ }
  if (wanted && !names.includes(wanted)) names.push(wanted);
  for (const n of names) select.appendChild(el("option", n, { value: n }));
  if (wanted) select.value = wanted;
}

async function start() {
  const params = {};
  for (const pair of location.hash.slice(1).split("&")) {
    const at = pair.indexOf("=");
    if (at > 0) params[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const decode = (v) => { try { return decodeURIComponent(v); } catch (e) { return ""; } };
  await loadProfiles(params.profile ? decode(params.profile) : "");
  if (["body", "form", "json"].includes(params.location)) $("location").value = params.location;
  $("text").addEventListener("input", () => { input = null; $("source").hidden = true; });
  $("file").addEventListener("change", async () => {
    const file = $("file").files[0];
    if (file) setInput(new Uint8Array(await file.arrayBuffer()), `the file ${file.name}`);
  });
  $("form").addEventListener("submit", (e) => { e.preventDefault(); explain(); });
  if (params.text !== undefined) {
    setInput(percentBytes(params.text), "the link");
    await explain();
  } else document.body.dataset.state = "ready";
}

document.addEventListener("DOMContentLoaded", start);
