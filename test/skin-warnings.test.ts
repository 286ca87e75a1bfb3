/**
 * The bake's warnings about a file's skins (`skinWarnings`): one skin's warning printed as it
 * is; one kind met by several skins printed once, counting and naming them.
 */
import { describe, expect, it } from 'vitest';
import { skinWarnings } from '../src/cli/skin-warnings.js';

function collect(skins: number) {
  const lines: string[] = [];
  return { lines, warnings: skinWarnings({ out: () => {}, err: (l) => lines.push(l), tty: false }, 'a.glb', skins) };
}

describe('skin warnings', () => {
  it('prints a kind that one skin meets as that skin’s own warning', () => {
    const { lines, warnings } = collect(3);
    warnings.add('Armature', 'half-way worse at some times', 'half-way worse at 7 of 479 times', '7 of 479');
    expect(lines).toEqual([]); // nothing before the flush
    warnings.flush();
    expect(lines).toEqual(['corskin: warning: a.glb: Armature: half-way worse at 7 of 479 times']);
    warnings.flush();
    expect(lines).toHaveLength(1); // flushed once
  });

  it('prints a kind that several skins meet once, counted, every one named with its detail, kinds in order', () => {
    const { lines, warnings } = collect(40);
    for (let s = 0; s < 10; s++)
      warnings.add(`skin ${s}`, 'worse beyond the clips', `worse beyond the clips (skin ${s})`);
    warnings.add('skin 3', 'less than half', 'less than half (12%)', '12%');
    warnings.add('skin 4', 'less than half', 'less than half (30%)', '30%');
    warnings.flush();
    expect(lines).toEqual([
      'corskin: warning: a.glb: 10 of 40 skins (skin 0, skin 1, skin 2, skin 3, skin 4, skin 5, skin 6, skin 7, skin 8, skin 9): worse beyond the clips',
      'corskin: warning: a.glb: 2 of 40 skins (skin 3: 12%, skin 4: 30%): less than half',
    ]);
  });
});
