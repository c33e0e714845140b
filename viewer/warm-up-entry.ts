/**
 * The page's first script (index.html, before main.ts): starts the GPU warm-up
 * (timeline/gpu-warm-up.ts) before the app's modules are evaluated. On a cold browser
 * with software GL the GPU process takes seconds to start its WebGL stack, and a small
 * trace is decoded before that: the timeline's first frame waits for it.
 */
import { warmUpGpu } from './timeline/gpu-warm-up.js';

void warmUpGpu();
