import { describe, expect, it } from 'vitest';
import { type CpuProfile, functionLabel, packageOf, profileDifferences, summariseProfile } from './cpu-profile.js';

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({ id, callFrame: { functionName, url, lineNumber: 9 }, children });

/** root → handler (persistence) → stringify (koa); idle beside them. */
function profileOf(tree: string, times: { handler: number; koa: number; idle: number }): CpuProfile {
  return {
    nodes: [
      frame(1, '(root)', '', [2, 4]),
      frame(2, 'handler', `file://${tree}/packages/persistence/dist/use-cases/x.js`, [3]),
      frame(3, 'respond', `${tree}/node_modules/koa/lib/application.js`),
      frame(4, '(idle)', ''),
    ],
    samples: [2, 3, 4],
    timeDeltas: [times.handler, times.koa, times.idle],
  };
}

describe('cpu profiles', () => {
  it('names packages and functions the same for any tree', () => {
    const urls = ['file:///tmp/pits-70fc51f/packages/persistence/dist/a.js', '/work/main/node_modules/@koa/router/lib/router.js', 'node:internal/streams/writable', ''];
    expect(urls.map(packageOf)).toEqual(['packages/persistence', '@koa/router', 'node internals', '(native/VM)']);
    const old = frame(1, 'run', 'file:///tmp/pits-70fc51f/packages/persistence/dist/a.js');
    const main = frame(1, 'run', 'file:///work/main/packages/persistence/dist/a.js');
    expect(functionLabel(old)).toBe('run packages/persistence/dist/a.js:10');
    expect(functionLabel(main)).toBe(functionLabel(old));
  });

  it('sums self time by function and package, inclusive time of workspace functions, and idle apart', () => {
    const s = summariseProfile(profileOf('/work/main', { handler: 300, koa: 200, idle: 1000 }));
    expect(s.total).toBe(1500);
    expect(s.idle).toBe(1000);
    expect(s.selfByPackage.get('packages/persistence')).toBe(300);
    expect(s.selfByPackage.get('koa')).toBe(200);
    expect(s.selfByFunction.get('respond koa/lib/application.js:10')).toBe(200);
    // The handler's inclusive time holds what it called; Koa's frame is not the workspace's.
    expect(s.inclusive.get('handler packages/persistence/dist/use-cases/x.js:10')).toBe(500);
    expect(s.inclusive.size).toBe(1);
  });

  it('lines two trees up key by key, the largest difference first either way, idle left out', () => {
    const old = summariseProfile(profileOf('/tmp/pits-70fc51f', { handler: 300, koa: 200, idle: 1000 }));
    const main = summariseProfile(profileOf('/work/main', { handler: 250, koa: 290, idle: 900 }));
    expect(profileDifferences(old.selfByPackage, main.selfByPackage)).toEqual([
      { key: 'koa', old: 200, main: 290, difference: 90 },
      { key: 'packages/persistence', old: 300, main: 250, difference: -50 },
    ]);
    const onlyOne = profileDifferences(new Map([['a', 5]]), new Map([['b', 7]]));
    expect(onlyOne).toEqual([
      { key: 'b', old: 0, main: 7, difference: 7 },
      { key: 'a', old: 5, main: 0, difference: -5 },
    ]);
  });
});
