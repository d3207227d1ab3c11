// Reading a `node --cpu-prof` profile (what BENCH_PROFILE_DIR writes): where each sample's time
// went, by function, by package and, for the workspace's own functions, inclusively. Paths are
// cut to what two trees share (`packages/persistence/dist/...`, `koa/lib/...`), so a profile of
// an older tree's gateway compares function by function with this tree's (cpu-profile-compare.ts).
import { readFileSync } from 'node:fs';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** µs sampled, and of it the thread's idle time. */
  total: number;
  idle: number;
  selfByFunction: Map<string, number>;
  selfByPackage: Map<string, number>;
  /** Workspace functions (packages/*, apps/*) with everything they called. */
  inclusive: Map<string, number>;
}

/** The package a frame's code belongs to: node_modules/<name>, packages/<name>, apps/<name>, node internals. */
export function packageOf(url: string): string {
  if (url === '') return '(native/VM)';
  if (url.startsWith('node:')) return 'node internals';
  const modules = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  const workspace = /\/(packages|apps|tools)\/([^/]+)\//.exec(url);
  if (workspace) return `${workspace[1]}/${workspace[2]}`;
  return url;
}

/** A function as `name path:line`, its path cut below the tree it came from. */
export function functionLabel(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const short = url.replace(/^file:\/\//, '').replace(/^.*node_modules\//, '').replace(/^.*\/(packages|apps|tools)\//, '$1/');
  return `${functionName || '(anonymous)'} ${short ? `${short}:${lineNumber + 1}` : ''}`.trim();
}

const add = (map: Map<string, number>, key: string, value: number) => map.set(key, (map.get(key) ?? 0) + value);

/** The summary of the profile in `file` (a `.cpuprofile`). */
export function readProfileSummary(file: string): ProfileSummary {
  return summariseProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
}

export function summariseProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const summary: ProfileSummary = { total: 0, idle: 0, selfByFunction: new Map(), selfByPackage: new Map(), inclusive: new Map() };
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id)!;
    summary.total += delta;
    if (node.callFrame.functionName === '(idle)') summary.idle += delta;
    add(summary.selfByFunction, functionLabel(node), delta);
    add(summary.selfByPackage, node.callFrame.url ? packageOf(node.callFrame.url) : node.callFrame.functionName, delta);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!;
      if (!/\/(packages|apps)\//.test(frame.callFrame.url)) continue;
      const key = functionLabel(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      add(summary.inclusive, key, delta);
    }
  });
  return summary;
}

/** One key's self time in two profiles (µs) and main's less old's. */
export interface ProfileDifference {
  key: string;
  old: number;
  main: number;
  difference: number;
}

/**
 * Every key of either map with both sides' time, the largest differences (either way) first. For
 * two gateways that served the same requests (the paired mode), the differences are what one
 * costs beyond the other; `(idle)` is left out.
 */
export function profileDifferences(old: ReadonlyMap<string, number>, main: ReadonlyMap<string, number>): ProfileDifference[] {
  const keys = new Set([...old.keys(), ...main.keys()]);
  keys.delete('(idle)');
  return [...keys]
    .map((key) => ({ key, old: old.get(key) ?? 0, main: main.get(key) ?? 0, difference: (main.get(key) ?? 0) - (old.get(key) ?? 0) }))
    .sort((a, b) => Math.abs(b.difference) - Math.abs(a.difference) || a.key.localeCompare(b.key));
}
