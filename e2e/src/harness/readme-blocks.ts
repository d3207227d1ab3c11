// What a reader copies from a README: the fenced code between `<!-- <name>:start -->` and
// `<!-- <name>:end -->`, as it stands, or as bash commands one per line with comments dropped.

/**
 * The code of the fenced block under `<!-- <name>:start -->`, without its fence.
 *
 * @example
 * readmeBlock(readme, 'client-example') // "import { createInternalClient } from '@pits/internal-api-client';\n..."
 */
export function readmeBlock(readme: string, name: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = readme.indexOf(start);
  const to = readme.indexOf(end, from);
  if (from < 0 || to < 0) throw new Error(`the README has no ${start} … ${end} block`);
  const section = readme.slice(from + start.length, to);
  const fence = /```[a-z]*\n([\s\S]*?)```/.exec(section);
  if (!fence) throw new Error(`the ${name} block of the README holds no fenced code`);
  return fence[1]!;
}

/**
 * @example
 * readmeCommands(readme, 'newcomer') // ['npm ci && npm start']
 */
export function readmeCommands(readme: string, name: string): string[] {
  return readmeBlock(readme, name)
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
