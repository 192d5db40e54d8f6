// Test-only: DSH's own published session packages judge session logs, one JSON line per
// file and judge. Started by `oracle/run`, which installs the pinned packages; nothing here
// re-implements DSH: every verdict is what a public export of a published package says.
//
//   node judge.mjs [--judge NAME]... FILE...
//   node judge.mjs --known-types     the event types DSH 0.1.1-rc.2's store knows
//                                    (`KNOWN_SESSION_EVENT_TYPES`), one per line, sorted
//   node judge.mjs --list-judges
//   node judge.mjs --fork SEQ --child ID FILE
//                                    the child log DSH 0.1.1-rc.2's `SessionStore.fork(source,
//                                    SEQ, ID)` writes (JsonlSessionPersistence) for the session
//                                    FILE holds, on standard output; a refusal on standard
//                                    error, exit 1
//
// Judges (ORACLE.md; FORMAT.md §6.5; GENERATIONS.md §1.3, §4):
//   dsh-0.1.1-rc.2                     the 0.1.1-line store's top-level read: `SessionStore`
//                                      with `JsonlSessionPersistence` in a cordis Context,
//                                      `sessionPersistence.load(id)` on a copy of the log
//                                      placed where `locate(header)` says it lives.
//   v0-to-v1-0.1.3-alpha.2             the frozen v0→v1 edge (`createSessionFormatCatalog`
//                                      with the released v0/v1 codecs), strict, followed by
//                                      the edge's own final check
//                                      (`assertReleasedArtifactRelationships`).
//   v0-to-v1-0.1.3-alpha.2-recoverable the same with `recovery: 'recoverable'`, the reading
//                                      DSH's production code uses for a historical log.
//
// Each output line: {"file", "judge", "verdict": "accepted"|"refused"|"unjudged", "error",
// "events"}. `events` is the number of events DSH accepted (null when refused); "unjudged"
// says the published packages cannot read this file at all (a SQLite store: no SQLite
// backend of the 0.1.1 line is published), with the reason in `error`.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const STORE = 'dsh-0.1.1-rc.2';
const EDGE = 'v0-to-v1-0.1.3-alpha.2';
const EDGE_RECOVERABLE = 'v0-to-v1-0.1.3-alpha.2-recoverable';
const ALL_JUDGES = [STORE, EDGE, EDGE_RECOVERABLE];

const args = process.argv.slice(2);
const judges = [];
const files = [];
let knownTypes = false;
let forkAt;
let forkChild;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--judge') judges.push(args[++i]);
  else if (args[i] === '--fork') forkAt = Number(args[++i]);
  else if (args[i] === '--child') forkChild = args[++i];
  else if (args[i] === '--list-judges') { console.log(ALL_JUDGES.join('\n')); process.exit(0); }
  else if (args[i] === '--known-types') knownTypes = true;
  else files.push(args[i]);
}
for (const j of judges) {
  if (!ALL_JUDGES.includes(j)) {
    console.error(`oracle: unknown judge ${JSON.stringify(j)} (known: ${ALL_JUDGES.join(', ')})`);
    process.exit(2);
  }
}
const chosen = judges.length > 0 ? judges : ALL_JUDGES;

// The packages live in the cache folder `oracle/run` installed (DSH_SESSION_ORACLE_MODULES),
// not beside this file.
const modules = createRequire(path.join(process.env.DSH_SESSION_ORACLE_MODULES ?? process.cwd(), 'package.json'));
const load = (name) => import(pathToFileURL(modules.resolve(name)).href);
const { Context } = await load('@deepseek-ai/cordis');
const session = await load('@deepseek-ai/dsh-session');
const { JsonlSessionPersistence } = await load('@deepseek-ai/dsh-session-persistence-jsonl');
const { createSessionFormatCatalog } = await load('@deepseek-ai/dsh-session-format');
const v01 = await load('@deepseek-ai/dsh-session-format-v0-to-v1');
const SessionStore = session.default;
if (knownTypes) {
  console.log([...session.KNOWN_SESSION_EVENT_TYPES].sort().join('\n'));
  process.exit(0);
}

if (forkAt !== undefined) {
  process.exit(await forkWithDsh(files[0], forkAt, forkChild));
}

/** The kind of artifact a path names, by its suffix (FORMAT.md §7.1, §8). */
function kindOf(file) {
  if (/\.(db|sqlite|sqlite3)$/.test(file)) return 'sqlite';
  if (file.endsWith('.zstd')) return 'zstd';
  return 'jsonl';
}

/**
 * The byte length of the zstd frame at `at` (RFC 8878 §3.1.1: frame header, blocks, optional
 * checksum), or -1 when the bytes end inside it. Only framing is read here; each frame is
 * then decompressed by Node's zstd, the decoder DSH itself uses (`node:zlib`).
 */
function zstdFrameLength(bytes, at) {
  if (at + 4 > bytes.length) return -1;
  const magic = bytes.readUInt32LE(at);
  if ((magic & 0xfffffff0) === 0x184d2a50) {
    if (at + 8 > bytes.length) return -1;
    const n = 8 + bytes.readUInt32LE(at + 4);
    return at + n <= bytes.length ? n : -1;
  }
  if (magic !== 0xfd2fb528) return -1;
  let p = at + 4;
  if (p >= bytes.length) return -1;
  const fhd = bytes[p++];
  const fcsFlag = fhd >> 6;
  const single = (fhd >> 5) & 1;
  const checksum = (fhd >> 2) & 1;
  const dictFlag = fhd & 3;
  p += single ? 0 : 1;
  p += [0, 1, 2, 4][dictFlag];
  p += [single ? 1 : 0, 2, 4, 8][fcsFlag];
  for (;;) {
    if (p + 3 > bytes.length) return -1;
    const header = bytes[p] | (bytes[p + 1] << 8) | (bytes[p + 2] << 16);
    p += 3;
    const last = header & 1;
    const type = (header >> 1) & 3;
    const size = header >> 3;
    p += type === 1 ? 1 : size;
    if (p > bytes.length) return -1;
    if (last) break;
  }
  p += checksum ? 4 : 0;
  return p <= bytes.length ? p - at : -1;
}

/**
 * The logical JSONL text of a log: the bytes for plain JSONL; for zstd, the frames in order,
 * each decompressed by Node's zstd, up to the first frame that is incomplete or fails (DSH
 * keeps the records of complete frames, FORMAT.md §5.5.2).
 */
function logicalText(file, bytes) {
  if (kindOf(file) !== 'zstd') return bytes.toString('utf8');
  const parts = [];
  let at = 0;
  while (at < bytes.length) {
    const n = zstdFrameLength(bytes, at);
    if (n < 0) break;
    try {
      parts.push(zlib.zstdDecompressSync(bytes.subarray(at, at + n)));
    } catch {
      break;
    }
    at += n;
  }
  return Buffer.concat(parts).toString('utf8');
}

function firstLineValue(text) {
  const nl = text.indexOf('\n');
  const line = nl < 0 ? text : text.slice(0, nl);
  try { return JSON.parse(line); } catch { return undefined; }
}

function message(error) {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\/tmp\/oracle-[^/]+/g, '<root>');
}

/** The 0.1.1-rc.2 store's `load(id)` on a copy placed at DSH's own path for it. */
async function judgeStore(file, bytes, text) {
  const kind = kindOf(file);
  if (kind === 'sqlite') {
    return { verdict: 'unjudged', error: 'no SQLite backend of the 0.1.1 line is published (dsh-session-persistence-sqlite has only 0.0.1-rc.1)', events: null };
  }
  const header = firstLineValue(text);
  const meta = header !== null && typeof header === 'object' && typeof header.id === 'string'
    ? header
    : { type: 'session', version: 0, id: 'oracle-unreadable-header', createdAt: 0, delegationDepth: 0 };
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'oracle-'));
  const ctx = new Context();
  try {
    await ctx.plugin(SessionStore);
    await ctx.plugin(JsonlSessionPersistence, { root, compression: kind === 'zstd' ? 'zstd' : 'none' });
    const persistence = ctx.get('sessionPersistence');
    let target;
    try {
      target = persistence.locate(meta).path;
    } catch (error) {
      return { verdict: 'refused', error: message(error), events: null };
    }
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, bytes);
    const loaded = await persistence.load(meta.id);
    return { verdict: 'accepted', error: null, events: loaded.events.length };
  } catch (error) {
    return { verdict: 'refused', error: message(error), events: null };
  } finally {
    try { await ctx.fiber?.dispose?.(); } catch { /* the Context is discarded anyway */ }
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** The frozen v0→v1 edge as a one-edge catalog, then the edge's own final check. */
function judgeEdge(file, text, recovery) {
  if (kindOf(file) === 'sqlite') {
    return { verdict: 'unjudged', error: 'the edge reads JSONL rows; a SQLite store reaches it only through an unpublished backend', events: null };
  }
  const restoreArtifact = (artifact) => v01.restoreReleasedV1Artifact(artifact, session.KNOWN_SESSION_EVENT_TYPES);
  const catalog = createSessionFormatCatalog({
    currentVersion: 1,
    codecs: [v01.releasedV0SessionFormatCodec, v01.releasedV1SessionFormatCodec],
    migrations: [v01.sessionFormatV0ToV1],
    restoreCurrentHeader: (header) => { v01.assertReleasedV1Header(header); return header; },
    restoreCurrent: restoreArtifact,
    restoreTransformedCurrent: restoreArtifact,
    currentEncoder: { encodeHeader: (header) => header, encodeEvent: (event) => event },
  });
  // Rows as the persistence layer hands them to the codec: complete lines only (a final
  // line without its newline is a torn tail the layer cuts first); a line that is not
  // JSON reaches the codec as its text, which the codec refuses as a row (strict) or
  // treats as a discardable tail (recoverable).
  const lines = text.split('\n');
  lines.pop();
  try {
    if (lines.length === 0) throw new Error('the log has no complete header line');
    let headerValue;
    try { headerValue = JSON.parse(lines[0]); } catch { headerValue = lines[0]; }
    const restore = catalog.createRestore(headerValue, { recovery, validation: 'transformed' });
    for (const line of lines.slice(1)) {
      let row;
      try { row = JSON.parse(line); } catch { row = line; }
      restore.decodeRow(row);
    }
    const artifact = restore.finish();
    v01.assertReleasedArtifactRelationships(artifact);
    return { verdict: 'accepted', error: null, events: artifact.events.length };
  } catch (error) {
    return { verdict: 'refused', error: message(error), events: null };
  }
}

/**
 * DSH 0.1.1-rc.2's own fork: the store loads the session, a live copy of it is published
 * (`create(id, { seed, meta })`, as a resume does), `fork(source, boundary, childId)` makes
 * the child and `flush` has the JSONL persistence write it; its file is printed.
 */
async function forkWithDsh(file, boundary, childId) {
  const bytes = fs.readFileSync(file);
  const kind = kindOf(file);
  const header = firstLineValue(logicalText(file, bytes));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'oracle-'));
  const ctx = new Context();
  try {
    await ctx.plugin(SessionStore);
    await ctx.plugin(JsonlSessionPersistence, { root, compression: kind === 'zstd' ? 'zstd' : 'none' });
    const persistence = ctx.get('sessionPersistence');
    const target = persistence.locate(header).path;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, bytes);
    const loaded = await persistence.load(header.id);
    const { type: _type, version: _version, ...meta } = loaded.meta;
    const store = ctx.get('sessions');
    const source = store.create(header.id, { seed: loaded.events, meta });
    const child = store.fork(source, boundary, childId);
    await store.flush(child);
    const written = logicalText(target, fs.readFileSync(persistence.locate(child.header).path));
    // Wait for a pipe to take it all: `process.exit` does not.
    await new Promise((resolve) => process.stdout.write(written, resolve));
    return 0;
  } catch (error) {
    console.error(`oracle: ${file}: ${message(error)}`);
    return 1;
  } finally {
    try { await ctx.fiber?.dispose?.(); } catch { /* the Context is discarded anyway */ }
    fs.rmSync(root, { recursive: true, force: true });
  }
}

for (const file of files) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    console.error(`oracle: ${file}: ${message(error)}`);
    process.exitCode = 2;
    continue;
  }
  const text = kindOf(file) === 'sqlite' ? '' : logicalText(file, bytes);
  for (const judge of chosen) {
    let result;
    if (judge === STORE) result = await judgeStore(file, bytes, text);
    else if (judge === EDGE) result = judgeEdge(file, text, 'strict');
    else result = judgeEdge(file, text, 'recoverable');
    console.log(JSON.stringify({ file, judge, ...result }));
  }
}
