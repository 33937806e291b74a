import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long a loop over rows may hold the event loop before it lets other callbacks run. */
export const DEFAULT_SLICE_MS = 10;

/**
 * Cuts a long synchronous loop (a file's rows, a gateway's contacts) into slices: `await
 * slicer.pause()` once per item lets timers, sockets and requests run whenever a slice has
 * lasted `sliceMs`, and costs a clock read otherwise. An `await` alone would not do: the
 * microtasks of a resolved promise run before any I/O callback.
 */
export class TimeSlicer {
  private sliceStarted = performance.now();

  constructor(private readonly sliceMs = DEFAULT_SLICE_MS) {}

  async pause(): Promise<void> {
    if (performance.now() - this.sliceStarted < this.sliceMs) {
      return;
    }
    await nextTurn();
    this.sliceStarted = performance.now();
  }
}
