/**
 * Which of the app's Vulkan devices the layer can trace, as its connections
 * tell (capture/layer/CONTRACT.md): one connection per VkDevice, whose hello
 * says `"traceable": false` and why for a device the layer refuses (no shader
 * clock, an extension it does not know, ...). A device refused before the
 * layer could say hello (the driver refused the features tracing needs) is
 * told only by a `skipped` event whose `what` is "device NAME".
 *
 * Nothing is ever captured from a refused device, so once every device seen
 * is refused and no traceable one follows within DEVICE_GRACE_MS, `onNone`
 * is called: app-capture.ts then ends the capture (--exit-after) or says the
 * app runs untraced, instead of waiting for the timeout.
 */
import type { HelloInfo, LayerEvent } from '../layer-server/requests.js';

/**
 * How long after a refused device a traceable one may still come before the
 * capture is given up. Apps create a second device right after the first
 * (one per GPU, or a probe device then the real one), but the layer says
 * hello only once vkCreateDevice has returned, and a cold driver's device
 * creation takes a second or two (NVIDIA's, with its shader cache) and
 * longer on a loaded machine. 5 s covers that, and costs little next to the
 * timeout the run would otherwise wait for (600 s by default).
 */
export const DEVICE_GRACE_MS = 5000;

/** A device the layer will not trace, and the layer's reason. */
export interface RefusedDevice {
  readonly device: string;
  readonly why: string;
}

export class DeviceWatch {
  /** Devices the layer refused, in the order it said so. */
  readonly refused: RefusedDevice[] = [];
  private traceable = 0;
  /** Connections whose device is refused (its later 'skipped' about the device says nothing new). */
  private readonly refusedConnections = new Set<number>();
  private readonly helloConnections = new Set<number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly onNone: () => void) {}

  /** A hello: the refused device it names, or null for a traceable one (layers that do not say are taken as traceable). */
  hello(hello: HelloInfo, connection: number): RefusedDevice | null {
    this.helloConnections.add(connection);
    if (hello.device['traceable'] !== false) {
      this.traceable++;
      this.cancel();
      return null;
    }
    const why = hello.device['why'];
    return this.refuse({ device: deviceName(hello), why: typeof why === 'string' && why !== '' ? why : 'the layer gave no reason' }, connection);
  }

  /**
   * An event: for a `skipped` "device NAME", the refused device when this is the first the CLI hears of it (a device
   * refused before its hello); null for every other event and for the repeat of a hello's refusal.
   */
  event(event: LayerEvent, connection: number): RefusedDevice | { readonly repeat: true } | null {
    if (event.event !== 'skipped' || !event.what.startsWith('device ')) return null;
    if (this.refusedConnections.has(connection)) return { repeat: true };
    // A connection whose hello said the device is traced: a newer layer's report, told as ordinary skipped work.
    if (this.helloConnections.has(connection)) return null;
    return this.refuse({ device: event.what.slice('device '.length), why: event.why }, connection);
  }

  /** Stops the grace timer (the capture ended some other way). */
  cancel(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private refuse(device: RefusedDevice, connection: number): RefusedDevice {
    this.refusedConnections.add(connection);
    this.refused.push(device);
    if (this.traceable === 0) {
      // Counted from the latest refusal: an app still creating devices may yet create one the layer traces.
      this.cancel();
      this.timer = setTimeout(() => {
        this.timer = null;
        if (this.traceable === 0) this.onNone();
      }, DEVICE_GRACE_MS);
    }
    return device;
  }
}

export function deviceName(hello: HelloInfo): string {
  const name = hello.device['name'] ?? hello.device['deviceName'];
  return typeof name === 'string' ? name : 'an unnamed device';
}

/** "llvmpipe (...): the device lacks VK_KHR_shader_clock ...", several joined by "; " (a device the app made again, once). */
export function describeRefused(refused: readonly RefusedDevice[]): string {
  return [...new Set(refused.map((r) => `${r.device}: ${r.why}`))].join('; ');
}
