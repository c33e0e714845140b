// Vite serves index.html (npm start) and builds the viewer (npx vite build).
// The decode worker is an ES module worker, bundled on its own.
import { defineConfig } from 'vite';

export default defineConfig({
  worker: { format: 'es' },
  build: { target: 'es2022', outDir: 'dist/viewer-app', chunkSizeWarningLimit: 2048 },
  server: { fs: { strict: true } },
});
