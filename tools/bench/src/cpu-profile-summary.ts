// npx tsx src/cpu-profile-summary.ts <file.cpuprofile> [top=25] — where a process spent its CPU:
// self time by function, self time by package (node_modules/<name>, packages/<name>, apps/<name>,
// node internals), and inclusive time of the workspace's own functions. Profiles come from
// `node --cpu-prof` (the inventory benchmark writes them with BENCH_PROFILE_DIR).
import { readProfileSummary } from './cpu-profile.js';

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: cpu-profile-summary.ts <file.cpuprofile> [top]');
const top = Number(topArg ?? 25);
const { total, selfByFunction, selfByPackage, inclusive } = readProfileSummary(file);

const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms ${((us / total) * 100).toFixed(1).padStart(5)}%`;
const print = (title: string, entries: Map<string, number>, count: number) => {
  console.log(`\n${title}`);
  for (const [key, value] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, count)) console.log(`${ms(value)}  ${key}`);
};
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled`);
print('self time by package', selfByPackage, 20);
print('self time by function', selfByFunction, top);
print('inclusive time of workspace functions (packages/*, apps/*)', inclusive, top);
