/**
 * The progress bar's time left (`remainingTime`, src/cli/ui.ts): the whole run's rate, shown
 * only once there is a rate to go by.
 */
import { describe, expect, it } from 'vitest';
import { progress, remainingTime } from '../src/cli/ui.js';

describe('remainingTime', () => {
  it('waits for 1% of the work and a second before it guesses', () => {
    expect(remainingTime(5, 0, 200)).toBe('…');
    expect(remainingTime(5, 1, 200)).toBe('…'); // 0.5%
    expect(remainingTime(0.5, 100, 200)).toBe('…');
    expect(remainingTime(5, 10, 0)).toBe('…');
  });
  it('is the time so far times the share left over the share done', () => {
    expect(remainingTime(10, 100, 200)).toBe('10s');
    expect(remainingTime(30, 50, 200)).toBe('1m30s');
    expect(remainingTime(2, 2, 200)).toBe('3m18s');
    expect(remainingTime(7, 200, 200)).toBe('0s');
  });
});

describe('progress where stderr is not a terminal', () => {
  it('prints a line every 10 s of the work, none for shorter work and none at its end', () => {
    let clock = 0;
    const lines: string[] = [];
    const io = { out: () => {}, err: (line: string) => lines.push(line), tty: false };
    const bar = progress(io, 'Fox: helpers', () => clock);
    for (let done = 0; done <= 2000; done += 100) {
      bar.update(done, 2000);
      clock += 1500; // 1.5 s a step: 30 s in all
    }
    bar.stop();
    expect(lines).toEqual([
      'corskin: Fox: helpers 35% (700/2,000), about 20s left',
      'corskin: Fox: helpers 70% (1,400/2,000), about 9s left',
    ]);
    const short = progress(io, 'short', () => (clock += 500));
    for (let done = 0; done <= 10; done++) short.update(done, 10);
    expect(lines).toHaveLength(2);
    // The end, however long after the last line, says nothing (the command's result follows).
    const ending = progress(io, 'ending', () => (clock += 30_000));
    ending.update(0, 5);
    ending.update(5, 5);
    expect(lines).toHaveLength(2);
    // Where the lines would be held until the work ends (a parallel batch's file): none.
    const held = progress({ ...io, progressLines: false }, 'held', () => (clock += 30_000));
    for (let done = 0; done < 5; done++) held.update(done, 5);
    expect(lines).toHaveLength(2);
  });
});
