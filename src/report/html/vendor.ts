/**
 * Chart.js (MIT), read from node_modules when a report is written and inlined into the page, so
 * the report needs no network and no file beside it. Its UMD build is self-contained (it bundles
 * its one dependency, @kurkle/color) and defines the global `Chart`.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

let cached: string | null = null;

/**
 * The minified Chart.js UMD bundle. Its license banners stay in place (MIT requires them); the
 * bundle is checked not to contain `</script` or `<!--`, which would end or confuse the inline
 * script element.
 * @throws Error when chart.js is not installed or its bundle is not where 4.x keeps it.
 */
export function chartJsSource(): string {
  if (cached !== null) return cached;
  const require = createRequire(import.meta.url);
  // The package's exports map hides dist/chart.umd.min.js; its main entry sits beside it.
  const dist = path.dirname(require.resolve('chart.js'));
  const source = readFileSync(path.join(dist, 'chart.umd.min.js'), 'utf8');
  if (/<\/script|<!--/i.test(source))
    throw new Error('chart.js bundle contains </script or <!--; refusing to inline it');
  cached = source;
  return source;
}
