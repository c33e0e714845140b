/** The CLI's side of the Vulkan layer's socket protocol (capture/layer/CONTRACT.md). */
export { InstrumentServer, type InstrumentServerOptions, type ServerStats } from './server.js';
export { LayerClient, ConnectionClosedError, type LayerResponse } from './client.js';
export { SpirvCache, cacheKey, canonicalJson, defaultCacheDir, instrumenterVersion } from './cache.js';
export { RequestError, readEvent, readHello, readInstrumentRequest, EVENT_NAMES, type HelloInfo, type LayerEvent, type InstrumentRequest, type JsonObject, type JsonValue } from './requests.js';
export * from './protocol.js';
