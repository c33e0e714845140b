/**
 * Makes the Perfetto protobuf trace off the page's thread: at millions of
 * warps the export takes seconds (the Chrome JSON one blocked the page for
 * 79 s at 5 M warps). The page posts the trace (structured clone: the page
 * keeps its columns) and gets back one Blob, or why it failed.
 */
import { perfettoProtoChunks } from '../../analysis/export/perfetto-proto.js';
import type { Trace } from '../../shared-schema/model.js';

export interface PerfettoExportRequest {
  readonly trace: Trace;
}

export type PerfettoExportResponse =
  | { readonly kind: 'done'; readonly blob: Blob; readonly warps: number }
  | { readonly kind: 'error'; readonly message: string };

const post = (message: PerfettoExportResponse) => (self as unknown as Worker).postMessage(message);

self.onmessage = (event: MessageEvent<PerfettoExportRequest>) => {
  try {
    // ~1 MiB chunks: the Blob holds them without one buffer of the whole file.
    const parts: Uint8Array<ArrayBuffer>[] = [];
    const chunks = perfettoProtoChunks(event.data.trace);
    let next = chunks.next();
    while (!next.done) {
      parts.push(next.value as Uint8Array<ArrayBuffer>);
      next = chunks.next();
    }
    post({ kind: 'done', blob: new Blob(parts, { type: 'application/octet-stream' }), warps: next.value.warps });
  } catch (error) {
    post({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
  }
};
