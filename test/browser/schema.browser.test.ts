// The schema is platform-neutral: building and reading traces works in the browser too.
import { synthesizeTrace, Stage, smIdPerWarp } from '../../shared-schema/index.js';
import { assert } from './assert.js';

it('builds a canonical synthetic trace in the browser', () => {
  const trace = synthesizeTrace({ warps: 20000, seed: 3 });
  const { warps } = trace;
  assert(warps.count === 20000, `count ${warps.count}`);
  const sm = smIdPerWarp(warps);
  for (let i = 1; i < warps.count; i++) {
    assert(sm[i]! >= sm[i - 1]!, `row ${i} breaks SM grouping`);
    if (sm[i] === sm[i - 1]) assert(warps.startNs[i]! >= warps.startNs[i - 1]!, `row ${i} breaks start order`);
  }
  let graphicsOffGraphicsSms = 0;
  for (let i = 0; i < warps.count; i++) {
    if (warps.stage[i] !== Stage.CS && ![0, 1, 48, 49].includes(sm[i]!)) graphicsOffGraphicsSms++;
  }
  assert(graphicsOffGraphicsSms === 0, `${graphicsOffGraphicsSms} graphics warps off the graphics SMs`);
});
