// npx tsx src/cpu-profile-summary.ts <file.cpuprofile> [top=25] — where a process spent its CPU:
// self time by function, self time by package (node_modules/<name>, packages/<name>, apps/<name>,
// node internals), and inclusive time of the workspace's own functions. Profiles come from
// `node --cpu-prof` (the inventory benchmark writes them with BENCH_PROFILE_DIR).
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: cpu-profile-summary.ts <file.cpuprofile> [top]');
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

function where(url: string): string {
  if (url === '') return '(native/VM)';
  if (url.startsWith('node:')) return 'node internals';
  const modules = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  const workspace = /\/(packages|apps|tools)\/([^/]+)\//.exec(url);
  if (workspace) return `${workspace[1]}/${workspace[2]}`;
  return url;
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const short = url.replace(/^file:\/\//, '').replace(/^.*node_modules\//, '').replace(/^.*\/(packages|apps|tools)\//, '$1/');
  return `${functionName || '(anonymous)'} ${short ? `${short}:${lineNumber + 1}` : ''}`.trim();
}

const self = new Map<string, number>();
const selfByPackage = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  total += delta;
  const node = byId.get(id)!;
  self.set(label(node), (self.get(label(node)) ?? 0) + delta);
  const pkg = node.callFrame.url ? where(node.callFrame.url) : node.callFrame.functionName;
  selfByPackage.set(pkg, (selfByPackage.get(pkg) ?? 0) + delta);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = byId.get(at)!;
    if (!/\/(packages|apps)\//.test(frame.callFrame.url)) continue;
    const key = label(frame);
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + delta);
  }
});

const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms ${((us / total) * 100).toFixed(1).padStart(5)}%`;
const print = (title: string, entries: Map<string, number>, count: number) => {
  console.log(`\n${title}`);
  for (const [key, value] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, count)) console.log(`${ms(value)}  ${key}`);
};
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled`);
print('self time by package', selfByPackage, 20);
print('self time by function', self, top);
print('inclusive time of workspace functions (packages/*, apps/*)', inclusive, top);
