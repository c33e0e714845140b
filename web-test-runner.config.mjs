// Browser tests run in Debian's Chromium (no browser downloads): see .ci/run.
import { chromeLauncher } from '@web/test-runner-chrome';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { build } from 'esbuild';

const executablePath = process.env.CHROME_PATH ?? '/usr/bin/chromium';

// pixi.js pulls in CommonJS dependencies (eventemitter3, @xmldom/xmldom) that browsers
// cannot import as modules. Vite pre-bundles them; here esbuild bundles pixi.js once
// into one ES module, which also spares the browser ~650 module requests.
let pixiBundle;
const pixiPrebundle = {
  name: 'pixi-prebundle',
  resolveImport({ source }) {
    return source === 'pixi.js' ? '/__pixi.js-bundle.mjs' : undefined;
  },
  async serve(context) {
    if (context.path !== '/__pixi.js-bundle.mjs') return undefined;
    pixiBundle ??= build({ entryPoints: ['pixi.js'], bundle: true, format: 'esm', write: false, target: 'es2022', logLevel: 'error' })
      .then((result) => result.outputFiles[0].text);
    return { body: await pixiBundle, type: 'js' };
  },
};

export default {
  files: ['test/browser/**/*.browser.test.ts'],
  nodeResolve: true,
  plugins: [pixiPrebundle, esbuildPlugin({ ts: true, target: 'es2022', tsconfig: './tsconfig.json' })],
  browsers: [
    chromeLauncher({
      launchOptions: {
        executablePath,
        headless: true,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--use-angle=swiftshader',
          '--enable-unsafe-swiftshader',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      },
    }),
  ],
  testFramework: { config: { timeout: 60000 } },
  testsFinishTimeout: 600000,
  concurrency: 1,
};
