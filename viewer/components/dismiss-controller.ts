/**
 * Closes a popover on Esc and on a pointer press outside it (lit reactive
 * controller). While `isOpen()` holds it listens on the document; a press
 * whose composed path passes `inside` (the popover, its toggle button) is
 * ignored, so the toggle still toggles.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class DismissController implements ReactiveController {
  constructor(
    host: ReactiveControllerHost,
    private readonly isOpen: () => boolean,
    private readonly inside: (target: EventTarget) => boolean,
    private readonly dismiss: () => void,
  ) {
    host.addController(this);
  }

  private readonly onKey = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || !this.isOpen()) return;
    e.stopPropagation();
    this.dismiss();
  };

  private readonly onPointer = (e: Event) => {
    if (!this.isOpen() || e.composedPath().some((t) => this.inside(t))) return;
    this.dismiss();
  };

  hostConnected(): void {
    document.addEventListener('keydown', this.onKey, true);
    document.addEventListener('pointerdown', this.onPointer, true);
  }

  hostDisconnected(): void {
    document.removeEventListener('keydown', this.onKey, true);
    document.removeEventListener('pointerdown', this.onPointer, true);
  }
}
