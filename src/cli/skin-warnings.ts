/**
 * A command's warnings about the skins of one file, one line per kind: a kind that one skin
 * meets prints as it is; one that several meet prints once, naming every one of them with its
 * figure (the skeleton's 40 skins gave 40 lines of one warning each).
 *
 * @module
 */
import type { Io } from './ui.js';

/** Collects warnings per skin ({@link SkinWarnings.add}), then prints them ({@link SkinWarnings.flush}). */
export interface SkinWarnings {
  /**
   * A warning about skin `name`: `text` is the whole warning for that skin alone; `kind`, the
   * same for every skin that meets it, is the warning for several, each named with its `detail`.
   */
  add(name: string, kind: string, text: string, detail?: string): void;
  /** Prints what was added, one line per kind (in the order kinds first came), and forgets it. */
  flush(): void;
}

/**
 * Warnings about the `skins` skins of `file`, printed through `io` as `corskin: warning: FILE:
 * SKIN: text`, or `FILE: 3 of 40 skins (skin 0: detail, skin 4: detail, skin 9: detail): kind`.
 */
export function skinWarnings(io: Io, file: string, skins: number): SkinWarnings {
  const kinds = new Map<string, { name: string; text: string; detail?: string }[]>();
  return {
    add(name, kind, text, detail) {
      const list = kinds.get(kind) ?? [];
      list.push({ name, text, detail });
      kinds.set(kind, list);
    },
    flush() {
      for (const [kind, list] of kinds) {
        if (list.length === 1) io.err(`corskin: warning: ${file}: ${list[0].name}: ${list[0].text}`);
        else {
          const named = list.map((s) => (s.detail ? `${s.name}: ${s.detail}` : s.name));
          io.err(`corskin: warning: ${file}: ${list.length} of ${skins} skins (${named.join(', ')}): ${kind}`);
        }
      }
      kinds.clear();
    },
  };
}
