// Drag and drop of a trace file anywhere on the app: shows the drop overlay while a file
// is dragged over it and hands the dropped file on.
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class FileDrop implements ReactiveController {
  /** A file is being dragged over the host: the overlay shows. */
  active = false;

  constructor(
    private readonly host: ReactiveControllerHost & HTMLElement,
    private readonly onFile: (file: File) => void,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    this.host.addEventListener('dragover', this.onDragOver);
    this.host.addEventListener('dragleave', this.onDragLeave);
    this.host.addEventListener('drop', this.onDrop);
  }

  hostDisconnected(): void {
    this.host.removeEventListener('dragover', this.onDragOver);
    this.host.removeEventListener('dragleave', this.onDragLeave);
    this.host.removeEventListener('drop', this.onDrop);
  }

  private setActive(active: boolean): void {
    if (this.active === active) return;
    this.active = active;
    this.host.requestUpdate();
  }

  private readonly onDragOver = (e: DragEvent): void => {
    if (!e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    this.setActive(true);
  };

  private readonly onDragLeave = (e: DragEvent): void => {
    if (e.relatedTarget === null || !this.host.contains(e.relatedTarget as Node)) this.setActive(false);
  };

  private readonly onDrop = (e: DragEvent): void => {
    e.preventDefault();
    this.setActive(false);
    const file = e.dataTransfer?.files[0];
    if (file !== undefined) this.onFile(file);
  };
}
