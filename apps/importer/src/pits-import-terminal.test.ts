// The data team's path, as they take it: a fresh clone of the committed HEAD, then the README's
// `data-team-import` block (build once, then `npx pits-import …`) typed into a terminal. The
// terminal is a real pseudo-terminal (`script`), with none of the CI variables this test runs
// under, so Nx would prompt here if it were going to, and the importer draws its progress bar.
//
// `npm ci` is not run in the clone: it compiles the embedded database's driver from source (minutes on this
// machine). The clone gets a copy of this checkout's node_modules instead, plus what `npm ci`
// does for workspace bins (`npm rebuild @pits/importer --ignore-scripts` links pits-import into
// node_modules/.bin, which this checkout's install may predate). Everything else is the clone's own.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAreaRecords } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORTER_ROOT } from './testing/importer-fixtures.js';
import { runInTerminal } from './testing/terminal-session.js';

const REPO_ROOT = join(IMPORTER_ROOT, '..', '..');

/** Variables that tell Nx (and npm) they run in CI, or that only this test runner sets. */
const NOT_A_TERMINAL_USER = /^(CI|CONTINUOUS_INTEGRATION|BUILD_ID|BUILD_NUMBER|BUILD_BUILDID|TF_BUILD|GITHUB_ACTIONS|BUILDKITE|CIRCLECI|CIRRUS_CI|TRAVIS|GITLAB_CI|CODEBUILD_BUILD_ID|HEROKU_TEST_RUN_ID|TEAMCITY_VERSION|JENKINS_URL|HUDSON_URL|bamboo.*|VITEST.*|NODE_ENV|TEST_.*|NX_.*|npm_.*|DATABASE_URL|FORCE_COLOR|NO_COLOR)$/;

/** The environment of a person at a terminal on this machine. */
function terminalUser(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { TERM: 'xterm-256color' };
  for (const [name, value] of Object.entries(process.env)) if (!NOT_A_TERMINAL_USER.test(name)) env[name] = value;
  // The Nx daemon would outlive this test in a temp folder; it has nothing to do with prompts.
  env.NX_DAEMON = 'false';
  return env;
}

/** The commands of a fenced block between `<!-- name:start -->` and `<!-- name:end -->`, comments dropped. */
function readmeBlock(readme: string, name: string): string[] {
  const match = new RegExp(`<!-- ${name}:start -->\\s*\`\`\`bash\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${name}:end -->`).exec(readme);
  if (!match) throw new Error(`README.md has no ${name} block`);
  return match[1]!.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l !== '');
}

const NX_PROMPT = /Share usage data|\(Y\/n\)|Help improve Nx/;
/** The bar as the terminal shows it: a bar, percent, rows, rows per second and the time left. */
const PROGRESS_BAR = /\rareas \[[#-]{24}\]\s+\d+% [\d,]+ rows, [\d,]+ rows\/s, ETA (?:\d+:)?\d+:\d\d /;
const FIVE_MINUTES = 300_000;

describe('the data team import command in a terminal, on a fresh clone', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pits-terminal-'));
  const clone = join(dir, 'repo');
  const env = terminalUser();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: clone, encoding: 'utf8' });
  let commands: string[];

  beforeAll(() => {
    execFileSync('git', ['clone', '--quiet', REPO_ROOT, clone]);
    commands = readmeBlock(readFileSync(join(clone, 'README.md'), 'utf8'), 'data-team-import');
    expect(commands[0], 'the block starts with the one-time setup').toBe('npm ci && npm run build');
    // cp -a keeps the workspace links relative (so they point into the clone) and is far faster than fs.cpSync here.
    execFileSync('cp', ['-a', join(REPO_ROOT, 'node_modules'), join(clone, 'node_modules')]);
    execFileSync('npm', ['rebuild', '@pits/importer', '--ignore-scripts', '--offline'], { cwd: clone, env, stdio: 'pipe' });
  }, 180_000);
  // The clone holds a copy of node_modules (about 70,000 files): removing it can take minutes on a
  // loaded machine whose disk is mounted with discard, so it is removed without blocking (a
  // synchronous removal also kept the hook's own timer from firing).
  afterAll(() => rm(dir, { recursive: true, force: true }), 300_000);

  it(
    'builds and imports with no Nx prompt, shows the progress bar with an ETA and the summary, and leaves nx.json as committed',
    async () => {
      const build = await runInTerminal('npm run build', { cwd: clone, env, timeoutMs: 180_000, stopOn: NX_PROMPT });
      expect(build.output, 'npm run build prompted').not.toMatch(NX_PROMPT);
      expect(build.exit, build.output.slice(-3000)).toBe(0);

      const imports = commands.slice(1);
      expect(imports, 'the block names the data team command').toContainEqual(expect.stringMatching(/^npx pits-import areas /));
      // The block imports the file the clone ships (nothing beside the clone is there to read).
      const rows = readAreaRecords(join(clone, 'apps', 'importer', 'assets', 'areas_id.csv.gz')).length;
      for (const command of imports) {
        const run = await runInTerminal(command, { cwd: clone, env, timeoutMs: 90_000, stopOn: NX_PROMPT });
        expect(run.output, `${command} prompted`).not.toMatch(NX_PROMPT);
        expect(run.exit, run.output.slice(-3000)).toBe(0);
        expect(run.output, 'the progress bar (with an ETA) was drawn').toMatch(PROGRESS_BAR);
        expect(run.output).toMatch(new RegExp(`areas: ${rows} rows read: ${rows} inserted, 0 updated, 0 unchanged, 0 rejected in \\d+\\.\\d\\d s \\([\\d,]+ rows/s\\)`));
        expect(run.output, 'no build output around the importer').not.toMatch(/nx run|Successfully ran target|NX /);
      }
      // Nothing the commands did shows in git: nx.json unchanged, no stray file.
      expect(git('status', '--porcelain')).toBe('');
    },
    FIVE_MINUTES,
  );

  it('would see the prompt if the workspace did not turn analytics off (the terminal is a real one)', async () => {
    const nxJson = join(clone, 'nx.json');
    writeFileSync(nxJson, readFileSync(nxJson, 'utf8').replace(/\n\s*"analytics": false,/, ''));
    try {
      const question = /Share usage data with the Nx team\?/;
      const run = await runInTerminal('npx nx show projects', { cwd: clone, env, timeoutMs: 60_000, stopOn: question });
      expect(run.output).toMatch(question);
      expect(run.output).toMatch(NX_PROMPT);
    } finally {
      git('checkout', '--', 'nx.json');
    }
    expect(git('status', '--porcelain')).toBe('');
  }, 90_000);
});
