/**
 * A client that speaks the layer's side of the socket protocol, for tests
 * and for fake apps: it sends requests (or raw bytes, to test the server's
 * defences) and reads the answers in order.
 */
import { connect, type Socket } from 'node:net';
import { FrameReader, REQUEST_MAGIC, RESPONSE_MAGIC, RequestType, encodeFrame, parseJsonObject, type RequestTypeName } from './protocol.js';

export interface LayerResponse {
  readonly status: number;
  readonly json: Record<string, unknown>;
  readonly payload: Uint8Array;
}

/** The server closed the connection (or broke the framing) before answering. */
export class ConnectionClosedError extends Error {
  override readonly name = 'ConnectionClosedError';
}

export class LayerClient {
  private readonly reader = new FrameReader(RESPONSE_MAGIC);
  private readonly arrived: LayerResponse[] = [];
  private readonly waiting: { resolve: (r: LayerResponse) => void; reject: (e: Error) => void }[] = [];
  private ended: Error | null = null;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      const { frames, error } = this.reader.push(chunk);
      for (const frame of frames) {
        const response = { status: frame.code, json: parseJsonObject(frame.json) ?? {}, payload: frame.payload };
        const waiter = this.waiting.shift();
        if (waiter !== undefined) waiter.resolve(response);
        else this.arrived.push(response);
      }
      if (error !== null) {
        this.finish(error);
        socket.destroy();
      }
    });
    socket.on('error', (error) => this.finish(new ConnectionClosedError(error.message)));
    socket.on('close', () => this.finish(new ConnectionClosedError('the server closed the connection')));
  }

  static connect(socketPath: string): Promise<LayerClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(socketPath);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new LayerClient(socket));
      });
    });
  }

  /** Sends one request and waits for its answer. */
  request(type: RequestTypeName | number, json: unknown, payload?: Uint8Array): Promise<LayerResponse> {
    const code = typeof type === 'number' ? type : RequestType[type];
    return this.sendRaw(encodeFrame(REQUEST_MAGIC, code, json, payload));
  }

  /** Sends bytes as they are and waits for the next answer. */
  sendRaw(bytes: Uint8Array): Promise<LayerResponse> {
    const answer = this.next();
    this.socket.write(bytes);
    return answer;
  }

  /** Sends bytes without taking an answer (pipelined requests; collect the answers with next()). */
  write(bytes: Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(bytes, (error) => (error ? reject(error) : resolve())));
  }

  /** The next answer not yet taken. */
  next(): Promise<LayerResponse> {
    const ready = this.arrived.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.ended !== null) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** Resolves when the server has closed the connection. */
  closed(): Promise<void> {
    if (this.socket.closed) return Promise.resolve();
    return new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  close(): void {
    this.socket.end();
  }

  private finish(error: Error): void {
    if (this.ended !== null) return;
    this.ended = error;
    for (const waiter of this.waiting.splice(0)) waiter.reject(error);
  }
}
