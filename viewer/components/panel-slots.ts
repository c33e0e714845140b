// The app's slots for panels from outside: slot="panels" (the right column) and
// slot="beside-timeline" (right of the timeline). Every element slotted into either gets
// the app's panel properties whenever the app updates; the layout only makes room for a
// slot that holds something.
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export const PANEL_SLOTS = ['panels', 'beside-timeline'] as const;
export type PanelSlot = (typeof PANEL_SLOTS)[number];

export class PanelSlots implements ReactiveController {
  private readonly filled = new Set<PanelSlot>();

  constructor(
    private readonly host: ReactiveControllerHost & { readonly renderRoot: HTMLElement | DocumentFragment },
    private readonly properties: () => object,
  ) {
    host.addController(this);
  }

  /** Whether something is slotted into `name`. */
  has(name: PanelSlot): boolean {
    return this.filled.has(name);
  }

  hostUpdated(): void {
    const props = this.properties();
    for (const name of PANEL_SLOTS) for (const el of this.slotted(name)) Object.assign(el, props);
  }

  private slotted(name: PanelSlot): Element[] {
    const slot = this.host.renderRoot.querySelector(`slot[name="${name}"]`) as HTMLSlotElement | null;
    return slot?.assignedElements() ?? [];
  }

  /** The slots' slotchange handler. */
  readonly onSlotChange = (): void => {
    for (const name of PANEL_SLOTS) {
      if (this.slotted(name).length > 0) this.filled.add(name);
      else this.filled.delete(name);
    }
    this.host.requestUpdate();
  };
}
