// `warptrace capture -- APP`: usage errors, a program that cannot be started, the environment the app is given
// (layerEnvironment), and buildLayer's checks (stand-in layer, capture-app-helpers.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { layerEnvironment } from '../../capture/capture-run/app-environment.js';
import { buildLayer } from '../../capture/capture-run/layer-build.js';
import { dir, layerDir, run } from './capture-app-helpers.js';

test('usage errors exit 2', () => {
  const cases: [string[], RegExp][] = [
    [['capture', '--frame', '3', '--submits', '1..2', '-o', 'x.wtrace', '--', 'x'], /--frame and --submits exclude each other/],
    [['capture', '--', 'x'], /missing -o/],
    [['capture', '-o', 'x.wtrace', '--'], /no app after --/],
    [['capture', '-o', 'x.wtrace', '--frame', '0', '--', 'x'], /--frame needs a whole number/],
    [['capture', '-o', 'x.wtrace', '--submits', '5..2', '--', 'x'], /--submits needs N <= M/],
    [['capture', '-o', 'x.wtrace', '--stages', 'vs,ms', '--', 'x'], /--stages takes/],
    [['capture', '-o', 'x.wtrace', '--timeout', 'soon', '--', 'x'], /--timeout needs a whole number/],
    [['capture', '-o', 'x.wtrace', '--sample-fs', '0', '--', 'x'], /--sample-fs takes a power of two from 1 to 32768 \(one warp in N records\), got "0"/],
    [['capture', '-o', 'x.wtrace', '--sample-fs', '65536', '--', 'x'], /--sample-fs takes a power of two from 1 to 32768/],
    [['capture', '-o', 'x.wtrace', '--sample', 'fs=6', '--', 'x'], /--sample fs takes a power of two from 1 to 32768 \(one warp in N records\), got "6"/],
    [['capture', '-o', 'x.wtrace', '--sample', 'px=8', '--', 'x'], /--sample takes STAGE=N with a stage of vs,tcs,tes,gs,fs,cs,task,mesh,rgen,ahit,chit,miss,rint,call, got "px=8"/],
    [['capture', '-o', 'x.wtrace', '--sample', 'fs=8', '--sample-fs', '4', '--', 'x'], /--sample-fs and --sample fs=N both set the fragment rate/],
    [['capture', '-o', 'x.wtrace', '--fs-id', 'primitive', '--', 'x'], /--fs-id takes primitive-id, frag-coord or none, got "primitive"/],
    [['capture', '-o', 'x.wtrace', '--positions', 'fs,vs', '--', 'x'], /--positions: expected fs, cs, rgen, ahit, chit, miss, rint, call \(comma-separated\) or none, got "vs"/],
    [['capture', '-o', 'x.wtrace', '--workload', 'aqt', '--', 'x'], /Unknown option '--workload'/],
    [['capture', '-o', 'x.wtrace', 'stray', '--', 'x'], /unexpected argument stray/],
  ];
  for (const [args, message] of cases) {
    const r = run(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, message);
  }
  // After --, --help belongs to the app: no help text, the usage error above is ours.
  const help = run(['capture', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /usage: warptrace capture -o OUT\.wtrace \[options\] -- APP ARGS/);
});

test('a program that cannot be started is exit 1', () => {
  const r = run(['capture', '-o', join(dir, 'none.wtrace'), '--', join(dir, 'no-such-program')]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /cannot start .*no-such-program: no such file or directory/);
});

test('layerEnvironment prepends to the user layers and drops inherited WARPTRACE_ selections', () => {
  const env = layerEnvironment(
    { VK_ADD_LAYER_PATH: '/opt/layers', VK_INSTANCE_LAYERS: 'VK_LAYER_KHRONOS_validation', WARPTRACE_FRAME: '9', WARPTRACE_DRAWS: 'x', WARPTRACE_SAMPLE: 'FS=4', WARPTRACE_FS_ID: 'primitive-id', WARPTRACE_TIME_ONLY: '1', WARPTRACE_PLAIN_NS: '5', HOME: '/h' },
    { manifestDir: '/build/layer', socketPath: '/tmp/s.sock', rawOutput: '/tmp/c.wtraw', selection: { frame: null, submits: { first: 1, last: 3 }, trigger: null, stages: null, draws: null, capacity: 1024 } },
  );
  assert.equal(env['VK_ADD_LAYER_PATH'], '/build/layer:/opt/layers');
  assert.equal(env['VK_INSTANCE_LAYERS'], 'VK_LAYER_WARPTRACE_capture:VK_LAYER_KHRONOS_validation');
  assert.equal(env['WARPTRACE_FRAME'], undefined);
  assert.equal(env['WARPTRACE_DRAWS'], undefined);
  assert.equal(env['WARPTRACE_SAMPLE'], undefined, 'an inherited sampling rate does not leak into the capture');
  assert.equal(env['WARPTRACE_FS_ID'], undefined, 'nor an inherited fragment custom id');
  assert.equal(env['WARPTRACE_TIME_ONLY'], undefined, 'an inherited time-only switch would leave the capture untraced');
  assert.equal(env['WARPTRACE_PLAIN_NS'], undefined);
  assert.equal(env['WARPTRACE_SUBMITS'], '1..3');
  assert.equal(env['WARPTRACE_CAPACITY'], '1024');
  assert.equal(env['WARPTRACE_SOCKET'], '/tmp/s.sock');
  assert.equal(env['HOME'], '/h');
});

test('buildLayer: a clear error without CMakeLists.txt; WARPTRACE_LAYER_DIR skips the build but is checked', async () => {
  const saved = process.env['WARPTRACE_LAYER_DIR'];
  try {
    delete process.env['WARPTRACE_LAYER_DIR'];
    const empty = mkdtempSync(join(dir, 'no-layer-'));
    await assert.rejects(buildLayer(empty), /the capture layer has no build yet: .*CMakeLists\.txt is missing/);
    process.env['WARPTRACE_LAYER_DIR'] = layerDir;
    assert.equal(await buildLayer(empty), layerDir);
    process.env['WARPTRACE_LAYER_DIR'] = empty;
    await assert.rejects(buildLayer(empty), /WARPTRACE_LAYER_DIR=.* holds no VkLayer_warptrace\.json/);
  } finally {
    if (saved === undefined) delete process.env['WARPTRACE_LAYER_DIR'];
    else process.env['WARPTRACE_LAYER_DIR'] = saved;
  }
});
