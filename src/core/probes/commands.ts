// Shell commands as probe facts: the part of a command line that does the work (a `cd … &&` prefix
// and pipes into sed/head/tail dropped), what it is for (test, build, typecheck, lint, install, or a
// command that changes something: git commit, gh pr create, rm, …), and its head: the words a
// summary would quote ("pnpm test parser", "gh issue close 1452"), up to its first option or quoted
// argument.

export type CommandPurpose = 'test' | 'build' | 'typecheck' | 'lint' | 'install' | 'change' | 'inspect';

const TEST =
  /^(?:(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test\b|(?:npx\s+|bunx\s+)?(?:jest|vitest|mocha|ava|playwright\s+test)\b|pytest\b|python3?\s+-m\s+(?:pytest|unittest)\b|go\s+test\b|cargo\s+test\b|node\s+(?:--test\b|test\/)|make\s+(?:test|check)\b|ctest\b|dotnet\s+test\b|mvn\s+test\b|gradle\w*\s+test\b|deno\s+test\b|bun\s+test\b)/;
const TYPECHECK =
  /^(?:(?:npx\s+)?tsc\b|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:typecheck|type-check|check-types|tsc)\b|mypy\b|pyright\b|cargo\s+check\b)/;
const LINT =
  /^(?:(?:npx\s+)?(?:eslint|prettier|biome|oxlint)\b|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:lint|format)\b|ruff\b|flake8\b|black\b|cargo\s+clippy\b|golangci-lint\b)/;
const BUILD =
  /^(?:(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?build\b|(?:npx\s+)?(?:esbuild|webpack|vite\s+build|rollup|tsup)\b|make\b|cargo\s+build\b|go\s+build\b|mvn\s+(?:package|install|compile)\b|gradle\w*\s+build\b|dotnet\s+build\b|docker\s+build\b)/;
const INSTALL =
  /^(?:(?:npm|pnpm|yarn|bun)\s+(?:i|install|add|ci)\b|pip3?\s+install\b|cargo\s+add\b|go\s+get\b|brew\s+install\b|apt(?:-get)?\s+install\b)/;
const CHANGE =
  /^(?:git\s+(?:commit|push|merge|rebase|checkout\s+-b|switch\s+-c|branch\s+-[dDm]|tag|reset|revert|cherry-pick|stash|rm|mv|worktree\s+add)\b|gh\s+(?:pr|issue|release)\s+(?:create|merge|close|comment|edit|reopen)\b|(?:rm|mv|cp|mkdir|ln|chmod|touch)\s|kill\b|pkill\b|docker\s+(?:run|compose\s+up|stop|rm)\b|npm\s+publish\b|bd\s+(?:create|update|close|note|dolt\s+(?:commit|push))\b)/;

/** Subcommands that change something, whatever the tool (`workmux add`, `kubectl apply`, `bd close`, …). */
const MUTATING_SUBCOMMAND =
  /^(add|create|new|init|delete|remove|rm|close|reopen|update|set|edit|push|publish|deploy|apply|merge|commit|send|start|stop|restart|kill|run|release|tag|archive|move|mv|rename|upload|install|uninstall)$/;
const READ_ONLY_TOOLS =
  /^(cat|sed|awk|rg|grep|find|ls|head|tail|less|wc|diff|echo|printf|which|command|type|nl|sort|uniq|jq|tree|file|stat|du|df|ps|env|pwd|date|curl|wget|python3?|node|npx|bash|sh|zsh)$/;

/** Environment assignments (`A=1 B=2 cmd`) and `sudo`/`time` prefixes, which are not the command. */
function bare(segment: string): string {
  return segment.replace(/^(?:(?:sudo|time|env)\s+|[A-Z_][A-Z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)\s+)+/, '').replace(/^git\s+-C\s+\S+/, 'git');
}

export function purposeOf(segment: string): CommandPurpose {
  const s = bare(segment.trim());
  // Asking a tool how it works changes nothing.
  if (/(^|\s)(--help|-h|help)(\s|$)/.test(s)) return 'inspect';
  if (TEST.test(s)) return 'test';
  if (TYPECHECK.test(s)) return 'typecheck';
  if (LINT.test(s)) return 'lint';
  if (BUILD.test(s)) return 'build';
  if (INSTALL.test(s)) return 'install';
  if (CHANGE.test(s)) return 'change';
  const words = s.split(/\s+/).filter((w) => !w.startsWith('-'));
  if (words.length >= 2 && !READ_ONLY_TOOLS.test(words[0]) && MUTATING_SUBCOMMAND.test(words[1])) return 'change';
  return 'inspect';
}

/** A command line split at `&&`, `||`, `;` and `|` outside quotes. */
export function segmentsOf(command: string): string[] {
  const out: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i];
    if (quote) {
      if (ch === quote) quote = null;
      current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === ';' || ch === '|' || (ch === '&' && command[i + 1] === '&')) {
      if (ch !== ';' && command[i + 1] === ch) i++;
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/** The segment of a command line that does the work: the first with a purpose other than inspect, else the first not a `cd`. */
export function mainSegment(command: string): { segment: string; purpose: CommandPurpose } {
  const segments = segmentsOf(command);
  for (const segment of segments) {
    const purpose = purposeOf(segment);
    if (purpose !== 'inspect') return { segment: segment.trim(), purpose };
  }
  const first = segments.find((s) => !/^\s*(cd|pushd|export|source|\.)\s/.test(s)) ?? segments[0] ?? command;
  return { segment: first.trim(), purpose: 'inspect' };
}

/** The words a summary would quote: the segment up to its first option after two words, or its first quoted argument (at most 6 words). */
export function commandHead(segment: string): string {
  const words = bare(segment).split(/\s+/);
  const head = (options: boolean, max: number) => {
    const out: string[] = [];
    for (const w of words) {
      if (out.length >= max) break;
      if (/["'$`(<>]/.test(w) || /^\d*[<>]/.test(w)) break;
      if (!options && w.startsWith('-') && out.length >= 2) break;
      out.push(w);
    }
    return out.join(' ');
  };
  const plain = head(false, 6);
  if (plain !== commandVerb(segment)) return plain;
  // Only its verb before the first option ("workmux run -b name"): the options say what it did.
  return head(true, 4).replace(/(\s+-\S*)+$/, '');
}

/** The title or message a command gives in quotes (`gh pr create --title "…"`, `git commit -m "…"`), if any. */
export function commandTitle(segment: string): string | undefined {
  const m = /(?:^|\s)(?:--title|-t|--message|-m|-am)[=\s]+(["'])(.+?)\1/.exec(segment);
  const title = m?.[2].replace(/\s+/g, ' ').trim();
  return title && title.length >= 4 ? title.slice(0, 80) : undefined;
}

/** The words that name what a command does, for a question ("gh issue close", "git commit", "pnpm test"). */
export function commandVerb(segment: string): string {
  const words = bare(segment)
    .split(/\s+/)
    .filter((w) => !w.startsWith('-'));
  const first = words[0] ?? '';
  if (/^(git|bd|npm|pnpm|yarn|bun|cargo|go|docker|kubectl|python3?|node|npx|make|dotnet|mvn|brew)$/.test(first))
    return words.slice(0, first === 'docker' && words[1] === 'compose' ? 3 : 2).join(' ');
  if (first === 'gh') return words.slice(0, 3).join(' ');
  // Another tool's subcommand ("workmux send"), when the second word is one.
  return !READ_ONLY_TOOLS.test(first) && /^[a-z][a-z-]*$/.test(words[1] ?? '') ? words.slice(0, 2).join(' ') : first;
}
