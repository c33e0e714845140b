// A trace with screen positions through the viewer's analysis worker and the
// decode worker's copies: the position column travels with the others.
import { analyzeTrace } from '../../analysis/analyze.js';
import { synthesizeTrace } from '../../shared-schema/index.js';
import { analyzeInWorker } from '../../viewer/loading/analysis-client.js';
import { columnBuffers, copyWarpColumns } from '../../viewer/loading/analysis-copies.js';
import { assert, assertEqual } from './assert.js';

describe('screen positions in the viewer\'s worker copies', () => {
  it('copies carry the position column in buffers of their own, and the analysis worker gives analyzeTrace\'s summary', async () => {
    const trace = synthesizeTrace({ warps: 20000, seed: 5, positions: true });
    const position = trace.warps.position;
    assert(position !== null, 'the trace has positions');
    const copy = copyWarpColumns(trace.warps);
    assert(copy.position !== null && copy.position !== position, 'a separate position column');
    assertEqual(Array.from(copy.position).join(','), Array.from(position).join(','), 'the same words');
    assert(columnBuffers(copy).includes(copy.position.buffer as ArrayBuffer), 'transferred with the others');
    const { summary } = await analyzeInWorker(trace);
    assertEqual(JSON.stringify(summary), JSON.stringify(analyzeTrace(trace)), 'same summary from the worker');
  });
});
