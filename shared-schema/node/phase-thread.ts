/**
 * Worker-thread entry of the conversion pool: one PhaseWorker per thread,
 * running its tasks of each phase (the data lives in shared memory; encoded
 * chunks stay here until 'pack' copies them into the file). Errors come
 * back as data (a TraceFormatError keeps code and field).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { TraceFormatError } from '../errors.js';
import { PhaseWorker, type WorkerRequest } from '../phase-worker.js';

const port = parentPort;
if (port === null) throw new Error('phase-thread.js runs as a worker thread');
const worker = new PhaseWorker((workerData as { index?: number } | null)?.index ?? 0);

port.on('message', (request: WorkerRequest) => {
  try {
    port.postMessage({ reply: worker.handle(request) });
  } catch (error) {
    port.postMessage({
      error:
        error instanceof TraceFormatError
          ? { code: error.code, field: error.field, message: error.message }
          : { message: error instanceof Error ? (error.stack ?? error.message) : String(error) },
    });
  }
});
