// npx tsx src/cpu-profile-compare.ts <old.cpuprofile> <main.cpuprofile> [top=25] — two gateways'
// profiles side by side: busy time (all but idle), then self time by package and by function,
// the largest differences first, in ms and in µs per request when `BENCH_REQUESTS` says how many
// each served. Meant for the paired mode's profiles (BENCH_PROFILE_DIR writes <dir>/old and
// <dir>/main), where both sides served the same requests at the same time; docs/benchmarks.md
// ("The SQLite approval, statement by statement") shows a use.
import { type ProfileDifference, profileDifferences, readProfileSummary } from './cpu-profile.js';

const [oldFile, mainFile, topArg] = process.argv.slice(2);
if (!oldFile || !mainFile) throw new Error('usage: cpu-profile-compare.ts <old.cpuprofile> <main.cpuprofile> [top]');
const top = Number(topArg ?? 25);
const requests = process.env.BENCH_REQUESTS === undefined ? null : Number(process.env.BENCH_REQUESTS);
if (requests !== null && !(Number.isSafeInteger(requests) && requests > 0)) throw new Error(`BENCH_REQUESTS: a positive whole number, got ${process.env.BENCH_REQUESTS}`);
const [old, main] = [readProfileSummary(oldFile), readProfileSummary(mainFile)];

const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
const perRequest = (us: number) => (requests === null ? '' : `${(us / requests).toFixed(1).padStart(8)} µs/req`);
const print = (title: string, rows: ProfileDifference[]) => {
  console.log(`\n${title}: old, main, main − old`);
  for (const row of rows.slice(0, top)) console.log(`${ms(row.old)} ${ms(row.main)} ${ms(row.difference)}${perRequest(row.difference)}  ${row.key}`);
};
console.log(`busy: old ${ms(old.total - old.idle)}, main ${ms(main.total - main.idle)}${perRequest(main.total - main.idle - (old.total - old.idle))}`);
print('self time by package', profileDifferences(old.selfByPackage, main.selfByPackage));
print('self time by function', profileDifferences(old.selfByFunction, main.selfByFunction));
