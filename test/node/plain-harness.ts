// The reference harness and its plain shaders on this machine's Vulkan device,
// for end-to-end tests of instrumented SPIR-V (spirv-sample, spirv-untraced).
import { buildNative } from '../../capture/capture-run/native.js';
import { probeDevice, type ProbedDevice } from '../../capture/capture-run/harness.js';
import { PLAIN, compileShaderSet } from '../../capture/capture-run/shaders.js';

export interface PlainHarness {
  readonly binary: string;
  readonly device: ProbedDevice;
  readonly plain: string;
}

/** The harness, or null with the reason where there is no device (never on CI: it installs lavapipe, so there it throws). */
export async function plainHarness(): Promise<{ harness: PlainHarness | null; unavailable: string }> {
  try {
    const binary = await buildNative();
    const device = await probeDevice(binary);
    return { harness: { binary, device, plain: await compileShaderSet(device, PLAIN) }, unavailable: '' };
  } catch (error) {
    // CI installs lavapipe (scripts/install-system-deps.sh): there a missing device is a failure.
    if (process.env['CI']) throw error;
    return { harness: null, unavailable: error instanceof Error ? error.message : String(error) };
  }
}
