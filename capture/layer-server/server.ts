/**
 * The instrument server the layer talks to (capture/layer/CONTRACT.md): a
 * Unix-domain stream socket, one connection per VkDevice, requests answered
 * in order on each connection, any number of connections at once.
 *
 * Whatever a connection sends, the server survives: a frame it cannot read
 * (bad magic, a size over the limits) gets status 2 and that connection is
 * closed; malformed JSON gets status 2 and the connection goes on; a module
 * the instrumenter refuses gets status 1 with the instrumenter's message.
 */
import { rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { instrumentSpirv } from '../../instrument/instrument.js';
import { SpirvCache, cacheKey, defaultCacheDir } from './cache.js';
import {
  FrameReader,
  REQUEST_MAGIC,
  RESPONSE_MAGIC,
  RequestType,
  Status,
  encodeFrame,
  parseJsonObject,
  type Frame,
  type StatusCode,
} from './protocol.js';
import { RequestError, readEvent, readHello, readInstrumentRequest, type HelloInfo, type LayerEvent } from './requests.js';

export interface InstrumentServerOptions {
  /** Path of the socket to listen on (its folder must exist; a stale socket file there is replaced). */
  readonly socketPath: string;
  /** Disk cache folder; undefined: defaultCacheDir(); null: memory only. */
  readonly cacheDir?: string | null;
  /** Each event the layer reports, in arrival order. */
  readonly onEvent?: (event: LayerEvent, connection: number) => void;
  /** Each hello (one per VkDevice the layer sees). */
  readonly onHello?: (hello: HelloInfo, connection: number) => void;
  /** Things worth a line on stderr: protocol errors, a disk cache that cannot be written. */
  readonly onWarning?: (message: string) => void;
}

/** What the server has seen, for the CLI's summary. */
export interface ServerStats {
  readonly connections: number;
  readonly instrumented: number;
  readonly cacheHits: number;
  readonly refused: number;
  readonly protocolErrors: number;
}

interface Reply {
  readonly status: StatusCode;
  readonly json: Record<string, unknown>;
  readonly payload?: Uint8Array;
}

export class InstrumentServer {
  readonly socketPath: string;
  readonly hellos: HelloInfo[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly cache: SpirvCache;
  private nextConnection = 1;
  private counts = { connections: 0, instrumented: 0, cacheHits: 0, refused: 0, protocolErrors: 0 };

  private constructor(private readonly options: InstrumentServerOptions) {
    this.socketPath = options.socketPath;
    const dir = options.cacheDir === undefined ? defaultCacheDir() : options.cacheDir;
    this.cache = new SpirvCache({ dir, warn: (m) => this.warn(m) });
    this.server = createServer((socket) => this.serve(socket));
  }

  /** Starts listening; resolves once the socket accepts connections. */
  static async start(options: InstrumentServerOptions): Promise<InstrumentServer> {
    const server = new InstrumentServer(options);
    // A socket file left by a killed run would make listen() fail with EADDRINUSE.
    rmSync(options.socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.server.listen(options.socketPath, () => {
        server.server.off('error', reject);
        resolve();
      });
    });
    // After start, a server error (rare: the listening socket failing) is reported, never thrown from an event.
    server.server.on('error', (error) => server.warn(`instrument server: ${error.message}`));
    return server;
  }

  get stats(): ServerStats {
    return { ...this.counts };
  }

  /** Stops listening, drops every connection and removes the socket file. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.socketPath, { force: true });
  }

  private serve(socket: Socket): void {
    const id = this.nextConnection++;
    this.counts.connections++;
    this.sockets.add(socket);
    const reader = new FrameReader(REQUEST_MAGIC);
    // Requests are handled one after another: answers go out in request order even when one waits on the disk.
    let queue: Promise<void> = Promise.resolve();
    let closing = false;
    socket.on('data', (chunk: Buffer) => {
      if (closing) return;
      const { frames, error } = reader.push(chunk);
      for (const frame of frames) {
        queue = queue.then(async () => {
          const reply = await this.answer(frame, id);
          if (!socket.destroyed) socket.write(encodeReply(reply));
        });
      }
      if (error !== null) {
        closing = true;
        this.counts.protocolErrors++;
        this.warn(`layer connection ${id}: ${error.message}; closing it`);
        // Earlier requests are answered first, then the error, then the connection ends.
        queue = queue.then(() => {
          if (!socket.destroyed) socket.end(encodeFrame(RESPONSE_MAGIC, Status.protocolError, { message: error.message }));
        });
      }
    });
    socket.on('error', () => {
      // The app died or closed mid-answer: nothing to tell it; 'close' follows.
    });
    socket.on('close', () => this.sockets.delete(socket));
  }

  /** The answer to one request; never throws (a bug in a handler becomes a refusal the layer can report). */
  private async answer(frame: Frame, connection: number): Promise<Reply> {
    try {
      const json = parseJsonObject(frame.json);
      if (json === null) return this.protocolError(connection, 'the request JSON is not a UTF-8 JSON object');
      switch (frame.code) {
        case RequestType.hello: {
          const hello = readHello(json);
          this.hellos.push(hello);
          this.options.onHello?.(hello, connection);
          return { status: Status.ok, json: {} };
        }
        case RequestType.instrument:
          return this.instrument(json, frame.payload);
        case RequestType.event: {
          const event = readEvent(json);
          if (event === null) this.warn(`layer connection ${connection}: unknown event ${JSON.stringify(json['event'])} ignored`);
          else this.options.onEvent?.(event, connection);
          return { status: Status.ok, json: {} };
        }
        default:
          return this.protocolError(connection, `unknown request type ${frame.code}`);
      }
    } catch (error) {
      if (error instanceof RequestError) return this.protocolError(connection, error.message);
      const message = error instanceof Error ? error.message : String(error);
      this.counts.refused++;
      return { status: Status.refused, json: { message: `internal error: ${message}` } };
    }
  }

  private instrument(json: Record<string, unknown>, spirv: Uint8Array): Reply {
    const { options } = readInstrumentRequest(json);
    const started = performance.now();
    const key = cacheKey(spirv, options);
    const hit = this.cache.get(key);
    if (hit !== null) {
      this.counts.cacheHits++;
      return { status: Status.ok, json: { cached: true, ms: elapsed(started) }, payload: hit };
    }
    let bytes: Uint8Array;
    try {
      bytes = instrumentSpirv(spirv, options).bytes;
    } catch (error) {
      // InstrumentError, SpirvFormatError, SpirvIdError: the module as given cannot be traced; the layer runs it plain.
      this.counts.refused++;
      return { status: Status.refused, json: { message: error instanceof Error ? error.message : String(error) } };
    }
    this.cache.put(key, bytes);
    this.counts.instrumented++;
    return { status: Status.ok, json: { cached: false, ms: elapsed(started) }, payload: bytes };
  }

  private protocolError(connection: number, message: string): Reply {
    this.counts.protocolErrors++;
    this.warn(`layer connection ${connection}: ${message}`);
    return { status: Status.protocolError, json: { message } };
  }

  private warn(message: string): void {
    this.options.onWarning?.(message);
  }
}

/** The reply's frame; one that breaks the protocol's limits (an instrumented module over 64 MiB) becomes a refusal. */
function encodeReply(reply: Reply): Uint8Array {
  try {
    return encodeFrame(RESPONSE_MAGIC, reply.status, reply.json, reply.payload);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return encodeFrame(RESPONSE_MAGIC, Status.refused, { message: `cannot answer: ${message}` });
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
