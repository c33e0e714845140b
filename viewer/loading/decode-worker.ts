/**
 * Decode worker: reads a trace (URL or file) with progress, decodes it,
 * builds the viewer's lane index, and transfers every typed array to the
 * page (zero-copy), so the page stays responsive on 10 M-warp traces.
 */
import { TraceFormatError, decodeTrace, detectTraceKind, synthesizeTrace, type Trace } from '../../shared-schema/index.js';
import { narrowUintColumn } from '../../shared-schema/columns.js';
import { buildLaneIndex, laneIndexBuffers } from '../model/lane-index.js';
import { contentHash } from './content-hash.js';
import { summarizeCalibration } from '../../analysis/calibration-quality.js';
import { columnBuffers, copyWarpColumns } from './analysis-copies.js';
import { packBlockProfile } from './block-transfer.js';
import { packMarks } from './mark-transfer.js';
import { describeBlocks } from '../../instrument/block-map.js';
import type { DecodeRequest, DecodeResponse, LoadPhase } from './protocol.js';

/** Larger files are refused before allocating (the browser could not hold the decoded trace anyway). */
const MAX_FILE_BYTES = 2 ** 31 - 1;

const post = (message: DecodeResponse, transfer: Transferable[] = []) => (self as unknown as Worker).postMessage(message, transfer);
const progress = (phase: LoadPhase, loaded: number, total: number | null) => post({ kind: 'progress', phase, loaded, total });

async function readStream(stream: ReadableStream<Uint8Array>, total: number | null): Promise<Uint8Array> {
  if (total !== null && total > MAX_FILE_BYTES) throw new TraceFormatError('too-large', 'file', `${total} bytes exceed the viewer's limit of ${MAX_FILE_BYTES}`);
  let buffer = new Uint8Array(total ?? 1 << 20);
  let loaded = 0;
  let lastReport = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (loaded + value.length > buffer.length) {
      const next = loaded + value.length;
      if (next > MAX_FILE_BYTES) throw new TraceFormatError('too-large', 'file', `more than ${MAX_FILE_BYTES} bytes`);
      const grown = new Uint8Array(Math.min(MAX_FILE_BYTES, Math.max(next, buffer.length * 2)));
      grown.set(buffer.subarray(0, loaded));
      buffer = grown;
    }
    buffer.set(value, loaded);
    loaded += value.length;
    const now = performance.now();
    if (now - lastReport > 50) {
      progress('read', loaded, total);
      lastReport = now;
    }
  }
  progress('read', loaded, total);
  return buffer.subarray(0, loaded);
}

async function readBytes(req: DecodeRequest): Promise<Uint8Array> {
  if (req.kind === 'blob') return readStream(req.blob.stream(), req.blob.size);
  if (req.kind !== 'url') throw new Error('not a byte source');
  let response: Response;
  try {
    response = await fetch(req.url);
  } catch (e) {
    throw new Error(`could not fetch ${req.url}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!response.ok) throw new Error(`could not fetch ${req.url}: HTTP ${response.status} ${response.statusText}`);
  const length = Number(response.headers.get('content-length'));
  // A compressed response's length is not the body's: progress then has no total.
  const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
  const total = Number.isFinite(length) && length > 0 && !encoded ? length : null;
  const type = response.headers.get('content-type') ?? '';
  const data = response.body === null ? new Uint8Array(await response.arrayBuffer()) : await readStream(response.body, total);
  // A dev server answers an unknown path with its HTML page (200): say that, not "not a warptrace file".
  if (detectTraceKind(data) === null && (/^text\//i.test(type) || startsWithMarkup(data))) {
    throw new Error(`${req.url} did not return a trace (HTTP ${response.status}${type ? `, ${type}` : ''}): the server sent ${startsWithMarkup(data) || /html/i.test(type) ? 'a web page' : 'text'}; check the URL`);
  }
  return data;
}

/** True when the first non-blank byte is '<' (HTML or XML; no trace format starts so). */
function startsWithMarkup(data: Uint8Array): boolean {
  for (let i = 0; i < Math.min(data.length, 256); i++) {
    const b = data[i]!;
    if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d || b === 0xef || b === 0xbb || b === 0xbf) continue;
    return b === 0x3c;
  }
  return false;
}

/**
 * A .wtraw's block section carries each module's SPIR-V: the describer reads its block
 * sites and source text from it (as the CLI's does), so the shader panel gets lines.
 */
const DECODE_OPTIONS = { describeModule: describeBlocks };

/** The block profile's counts packed into one buffer to transfer (block-transfer.ts); null when none. */
function packedBlocks(trace: Trace): { trace: Trace; buffer: ArrayBuffer | null } {
  if (trace.blocks == null) return { trace, buffer: null };
  const { profile, buffer } = packBlockProfile(trace.blocks);
  return { trace: { ...trace, blocks: profile }, buffer };
}

/** The decoders keep custom ids as wide as their format allows; narrow them for memory. */
function narrowed(trace: Trace): Trace {
  const c = trace.warps.customId;
  if (!(c instanceof Uint32Array)) return trace;
  const customId = narrowUintColumn(c);
  return customId === c ? trace : { ...trace, warps: { ...trace.warps, customId } };
}

self.onmessage = async (event: MessageEvent<DecodeRequest>) => {
  const req = event.data;
  try {
    const t0 = performance.now();
    let trace: Trace;
    let bytes = 0;
    let t1: number;
    let fileBytes: Uint8Array | null = null;
    if (req.kind === 'synthetic') {
      t1 = performance.now();
      progress('decode', 0, null);
      trace = synthesizeTrace({ warps: req.warps, seed: req.seed });
    } else {
      const data = await readBytes(req);
      bytes = data.length;
      if (req.kind === 'blob') fileBytes = data;
      t1 = performance.now();
      progress('decode', 0, null);
      trace = narrowed(decodeTrace(data, DECODE_OPTIONS));
    }
    const t2 = performance.now();
    progress('index', 0, null);
    const index = buildLaneIndex(trace);
    const calibration = summarizeCalibration(trace);
    const t3 = performance.now();
    // The analysis worker's columns, copied here so the page copies nothing (analysis-copies.ts).
    const analysisCopy = copyWarpColumns(trace.warps);
    const blocks = packedBlocks(trace);
    trace = blocks.trace;
    // The marks' columns in one fresh buffer, transferred (mark-transfer.ts).
    const marks = packMarks(trace.marks);
    if (marks.marks !== null) trace = { ...trace, marks: marks.marks };
    const transfer = [
      ...columnBuffers(trace.warps),
      ...columnBuffers(analysisCopy),
      ...laneIndexBuffers(index),
      ...(blocks.buffer === null ? [] : [blocks.buffer]),
      ...(marks.buffer === null ? [] : [marks.buffer]),
    ];
    post({ kind: 'done', trace, index, calibration, analysisCopy, bytes, timings: { readMs: t1 - t0, decodeMs: t2 - t1, indexMs: t3 - t2 } }, [...new Set(transfer)]);
    // After the trace is on its way: a file's hash (the key of its recent entry) never delays showing it.
    // WebCrypto's digest holds this thread (about 1 s per 100 MB measured in Chromium), not the page's.
    if (fileBytes !== null) post({ kind: 'hash', contentHash: await contentHash(fileBytes) });
  } catch (e) {
    const field = e instanceof TraceFormatError ? e.field : null;
    let message = e instanceof Error ? e.message : String(e);
    if (e instanceof RangeError && /allocat/i.test(message)) message = `out of memory while loading the trace (${message})`;
    post({ kind: 'error', message, field });
  }
};
