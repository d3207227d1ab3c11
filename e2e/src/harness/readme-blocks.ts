// The commands a newcomer copies from README.md: the fenced bash block between
// `<!-- <name>:start -->` and `<!-- <name>:end -->`, one command per line, comments dropped.

/**
 * @example
 * readmeCommands(readme, 'newcomer') // ['npm ci && npm start']
 */
export function readmeCommands(readme: string, name: string): string[] {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = readme.indexOf(start);
  const to = readme.indexOf(end, from);
  if (from < 0 || to < 0) throw new Error(`README.md has no ${start} … ${end} block`);
  const section = readme.slice(from + start.length, to);
  const fence = /```(?:bash|sh|shell)?\n([\s\S]*?)```/.exec(section);
  if (!fence) throw new Error(`the ${name} block of README.md holds no fenced code`);
  return fence[1]!
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
