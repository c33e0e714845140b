// Browser tests run in Debian's Chromium (no browser downloads): see .ci/run.
import { chromeLauncher } from '@web/test-runner-chrome';
import { esbuildPlugin } from '@web/dev-server-esbuild';

const executablePath = process.env.CHROME_PATH ?? '/usr/bin/chromium';

export default {
  files: ['test/browser/**/*.browser.test.ts'],
  nodeResolve: true,
  plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: './tsconfig.json' })],
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
