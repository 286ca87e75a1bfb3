/**
 * The shipped documentation (README.md and docs/*.md, which the package ships) links only to
 * files that exist, and to headings that exist where a link names one: images and pages moved
 * between the README and docs/ keep working on GitHub and in the npm tarball.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/data.js';

/** GitHub's anchor for a Markdown heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of a Markdown file's headings (fenced code skipped). */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (m) out.add(anchor(m[1]));
  }
  return out;
}

/** Relative link targets of a Markdown file (`[text](target)` and `![alt](target)`; not URLs, not in code). */
function links(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z]+:/i.test(t));
}

const files = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('documentation links', () => {
  it('finds the shipped pages and their links', () => {
    expect(files).toContain('docs/bake.md');
    expect(links(readFileSync(join(ROOT, 'README.md'), 'utf8')).length).toBeGreaterThan(10);
  });

  it.each(files)('%s links to files and headings that exist', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const broken: string[] = [];
    for (const target of links(text)) {
      const [path, hash] = target.split('#');
      const resolved = path ? join(ROOT, dirname(file), decodeURIComponent(path)) : join(ROOT, file);
      if (!existsSync(resolved)) broken.push(`${target} (no such file)`);
      else if (hash && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(hash))
        broken.push(`${target} (no such heading)`);
    }
    expect(broken).toEqual([]);
  });

  it('reads headings as GitHub anchors them', () => {
    expect(anchor('Baking for any engine')).toBe('baking-for-any-engine');
    expect(anchor('three.js: DQS, CoR, Direct Delta Mush and skinning templates on the GPU')).toBe(
      'threejs-dqs-cor-direct-delta-mush-and-skinning-templates-on-the-gpu',
    );
    expect(anchor('Speed (2-core machine, `npm run bench`)')).toBe('speed-2-core-machine-npm-run-bench');
  });
});
