/**
 * Worker-thread entry of the conversion pool: one PhaseWorker per thread,
 * answering each phase request; encoded chunks travel back transferred, not
 * copied. Errors come back as data (a TraceFormatError keeps code and field).
 */
import { parentPort } from 'node:worker_threads';
import { TraceFormatError } from '../errors.js';
import { PhaseWorker, type PhaseRequest } from '../phase-worker.js';

const port = parentPort;
if (port === null) throw new Error('phase-thread.js runs as a worker thread');
const worker = new PhaseWorker();

port.on('message', (message: { request: PhaseRequest; self: number }) => {
  try {
    const reply = worker.handle(message.request, message.self);
    const transfer: ArrayBuffer[] = [];
    if (message.request.phase === 'encode') {
      for (const [, chunk] of reply) {
        for (const bytes of Object.values(chunk as Record<string, Uint8Array | null>)) if (bytes !== null) transfer.push(bytes.buffer as ArrayBuffer);
      }
    }
    port.postMessage({ reply }, transfer);
  } catch (error) {
    port.postMessage({
      error:
        error instanceof TraceFormatError
          ? { code: error.code, field: error.field, message: error.message }
          : { message: error instanceof Error ? (error.stack ?? error.message) : String(error) },
    });
  }
});
