// The allocation sites of a window of a run: sampled bytes per function (and its callers with --depth N) in the later
// of two profiles written by bench/alloc-sites.mjs, less those of the earlier one.
// Usage: node bench/alloc-report.mjs EARLIER.heapprofile LATER.heapprofile [--top 40] [--depth 1]
import { readFileSync } from 'node:fs';
import { args, opt } from './common.mjs';
import { frameName } from './phases.mjs';

const [earlier, later] = args.filter((a) => a.endsWith('.heapprofile'));
if (!earlier || !later) {
  console.error('usage: node bench/alloc-report.mjs EARLIER.heapprofile LATER.heapprofile [--top N] [--depth N]');
  process.exit(2);
}
const TOP = Number(opt('top', '40'));
const DEPTH = Number(opt('depth', '1'));

function bySite(file) {
  const sites = new Map();
  const walk = (node, callers) => {
    const stack = [frameName(node.callFrame), ...callers].slice(0, DEPTH);
    if (node.selfSize) {
      const key = stack.join(' < ');
      sites.set(key, (sites.get(key) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, stack);
  };
  walk(JSON.parse(readFileSync(file, 'utf8')).head, []);
  return sites;
}

const before = bySite(earlier);
const added = [...bySite(later)].map(([k, v]) => [k, v - (before.get(k) ?? 0)]).filter(([, v]) => v > 0);
const total = added.reduce((s, [, v]) => s + v, 0);
console.log(`sampled bytes added between the two profiles: ${(total / 1024).toFixed(0)} KB`);
for (const [site, bytes] of added.sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
  console.log(`${(100 * bytes / total).toFixed(1).padStart(5)} %  ${(bytes / 1024).toFixed(0).padStart(7)} KB  ${site}`);
}
