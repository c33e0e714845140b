// The instanced quad mesh draws rectangles where its uniforms map them, in pixi's WebGL renderer.
import { Application } from 'pixi.js';
import { InstanceWriter } from '../../viewer/model/instances.js';
import { packRgba } from '../../viewer/model/colors.js';
import { QuadMesh } from '../../viewer/timeline/quad-mesh.js';
import { assert } from './assert.js';

function pixel(canvas: HTMLCanvasElement, x: number, y: number): [number, number, number] {
  const c = document.createElement('canvas');
  c.width = canvas.width;
  c.height = canvas.height;
  const ctx = c.getContext('2d')!;
  ctx.drawImage(canvas, 0, 0);
  const d = ctx.getImageData(x, y, 1, 1).data;
  return [d[0]!, d[1]!, d[2]!];
}

for (const layout of ['instanced', 'vertices'] as const) it(`draws rectangles (${layout}) mapped by uniforms, widened to the minimum width and clipped`, async () => {
  const app = new Application();
  await app.init({ width: 200, height: 100, preference: 'webgl', background: 0x000000, antialias: false, autoStart: false, resolution: 1 });
  document.body.append(app.canvas);
  try {
    const quads = new QuadMesh('test', layout);
    app.stage.addChild(quads.mesh);
    // Two rounds: the second replaces the first set (and grows the buffers).
    const stale = new InstanceWriter(1);
    stale.push(0, 10000, 0, 100, packRgba(0xffffff));
    quads.setInstances(stale);
    const w = new InstanceWriter(2);
    // x in "ns" relative to an origin: 1000..1500 ns, mapped at 0.1 px/ns + 10 px → 110..160 px.
    w.push(1000, 1500, 10, 30, packRgba(0xff0000));
    // A 1 ns warp: widened to 2 px around 20 px.
    w.push(100, 101, 40, 50, packRgba(0x00ff00));
    // Crosses the clip at x = 190: clipped.
    w.push(1700, 5000, 60, 70, packRgba(0x0000ff));
    quads.setInstances(w);
    quads.setMap(0.1, 10, 0, 2);
    quads.setClip(0, 190, 0, 100);
    app.render();
    const red = pixel(app.canvas, 130, 20);
    assert(red[0] > 200 && red[1] < 30, `red bar at (130,20): ${red}`);
    const outside = pixel(app.canvas, 165, 20);
    assert(outside[0] < 30, `no red right of the bar: ${outside}`);
    const green = pixel(app.canvas, 20, 45);
    assert(green[1] > 200, `short bar widened to be visible: ${green}`);
    const blue = pixel(app.canvas, 185, 65);
    assert(blue[2] > 200, `blue bar up to the clip: ${blue}`);
    const clipped = pixel(app.canvas, 195, 65);
    assert(clipped[2] < 30, `blue bar clipped at 190: ${clipped}`);
  } finally {
    app.destroy(true);
  }
});
