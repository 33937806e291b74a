import { TimeSlicer } from './time-slicer';

describe('TimeSlicer', () => {
  it('lets a timer run in the middle of a long loop, not only at its end', async () => {
    const slicer = new TimeSlicer(5);
    let timerRanAtItem: number | null = null;
    let item = 0;
    setTimeout(() => (timerRanAtItem = item), 1);
    const busyUntil = (ms: number): void => {
      const end = Date.now() + ms;
      while (Date.now() < end) {
        // Busy: the work a loop over rows does between pauses.
      }
    };
    for (item = 0; item < 20; item += 1) {
      busyUntil(2);
      await slicer.pause();
    }
    expect(timerRanAtItem).not.toBeNull();
    expect(timerRanAtItem).toBeLessThan(19);
  });
});
