/**
 * Every relative link in the README and docs/ leads somewhere: the file exists in the repository,
 * and a `#fragment` names a heading of the linked page (GitHub's heading ids: lower case, spaces to
 * hyphens, punctuation dropped, a repeated heading numbered -1, -2, …). Links inside code are text.
 * Code comments and strings in src/, test/, bench/ and scripts/ cite docs as `docs/page.md#anchor`
 * (e.g. docs/protocol.md#percentiles): each such citation must name a page and one of its headings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { REPO_ROOT } from './helpers/paths.js';

/** The page's text without fenced code blocks and code spans, where brackets are not links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's id for a heading's text. */
function headingId(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The ids of every heading of a page, repeated ones numbered as GitHub does. */
function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const id = headingId(match[1]!);
    const n = seen.get(id) ?? 0;
    ids.add(n === 0 ? id : `${id}-${n}`);
    seen.set(id, n + 1);
  }
  return ids;
}

/** Each relative link of `file` (its text `markdown`) that leads nowhere, with the reason. */
function brokenLinks(file: string, markdown: string): string[] {
  const broken: string[] = [];
  const name = relative(REPO_ROOT, file);
  for (const match of prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const link = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:: not a repository file
    const [path, fragment] = link.split('#', 2) as [string, string | undefined];
    const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    if (target !== REPO_ROOT && !target.startsWith(REPO_ROOT + sep)) {
      broken.push(`${name}: ${link} (outside the repository)`);
    } else if (!existsSync(target)) {
      broken.push(`${name}: ${link} (no such file)`);
    } else if (fragment !== undefined && fragment !== '') {
      const page = statSync(target).isFile() && target.endsWith('.md') ? readFileSync(target, 'utf8') : '';
      if (!headingIds(page).has(fragment))
        broken.push(`${name}: ${link} (no heading #${fragment} in ${relative(REPO_ROOT, target)})`);
    }
  }
  return broken;
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return entry.endsWith('.md') ? [path] : [];
  });
}

test('every relative link in README.md and docs/ resolves to a repository file (and heading)', () => {
  const pages = [join(REPO_ROOT, 'README.md'), ...markdownFiles(join(REPO_ROOT, 'docs'))];
  assert.ok(pages.length > 5, `only ${pages.length} pages: is the repository root right?`);
  const links = pages.flatMap((page) => [...prose(readFileSync(page, 'utf8')).matchAll(/\]\(/g)]).length;
  assert.ok(links > 10, `only ${links} links found: is the link pattern right?`);
  assert.deepEqual(
    pages.flatMap((page) => brokenLinks(page, readFileSync(page, 'utf8'))),
    [],
  );
});

test('the check catches a missing file, a missing heading and a link out of the repository', () => {
  const readme = join(REPO_ROOT, 'README.md');
  const ok =
    '[cli](docs/cli.md) [a run](docs/cli.md#servebench-run) [web](https://example.com/x.md) `[code](nowhere.md)`';
  assert.deepEqual(brokenLinks(readme, ok), []);
  assert.equal(brokenLinks(readme, 'see [gone](docs/gone.md)').length, 1);
  assert.equal(brokenLinks(readme, 'see [gone](docs/cli.md#no-such-heading)').length, 1);
  assert.equal(brokenLinks(readme, 'see [up](../outside.md)').length, 1);
  assert.equal(brokenLinks(readme, '```\n[in a fence](docs/gone.md)\n```\n').length, 0);
});

test('heading ids follow GitHub: code marks and punctuation dropped, repeats numbered', () => {
  const ids = headingIds('# A b\n## `servebench compare BASELINE [MORE…]`\n## A b\n```\n# not a heading\n```\n');
  assert.deepEqual([...ids], ['a-b', 'servebench-compare-baseline-more', 'a-b-1']);
});

/** The source files whose comments and strings may cite a docs section. */
function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs|sh|py)$/.test(entry) ? [path] : [];
  });
}

/** Each `docs/page.md#anchor` citation in `text` (of `file`) that names no page or no heading. */
function brokenCitations(file: string, text: string): string[] {
  const broken: string[] = [];
  const name = relative(REPO_ROOT, file);
  for (const match of text.matchAll(/(?<![\w./-])(docs\/[\w./-]+\.md)#([\w-]+)/g)) {
    const [, page, fragment] = match as unknown as [string, string, string];
    const target = join(REPO_ROOT, page);
    if (!existsSync(target)) broken.push(`${name}: ${page}#${fragment} (no such file)`);
    else if (!headingIds(readFileSync(target, 'utf8')).has(fragment))
      broken.push(`${name}: ${page}#${fragment} (no heading #${fragment} in ${page})`);
  }
  return broken;
}

test('every docs/page.md#anchor cited in src/, test/, bench/ and scripts/ names a heading', () => {
  const self = join(REPO_ROOT, 'test', 'docs-links.test.ts');
  const files = ['src', 'test', 'bench', 'scripts'].flatMap((dir) => sourceFiles(join(REPO_ROOT, dir)));
  const cited = files.filter((f) => f !== self && /docs\/[\w./-]+\.md#/.test(readFileSync(f, 'utf8')));
  assert.ok(cited.length > 20, `only ${cited.length} files cite a docs section: is the pattern right?`);
  assert.deepEqual(
    files.filter((f) => f !== self).flatMap((f) => brokenCitations(f, readFileSync(f, 'utf8'))),
    [],
  );
});

test('the citation check catches a missing page and a missing heading', () => {
  const file = join(REPO_ROOT, 'src', 'x.ts');
  assert.deepEqual(brokenCitations(file, '// see docs/cli.md#servebench-run and docs/protocol.md#percentiles'), []);
  assert.equal(brokenCitations(file, '// docs/gone.md#anything').length, 1);
  assert.equal(brokenCitations(file, "'(docs/protocol.md#no-such-heading)'").length, 1);
});
