// Hostile input to the built `splitpoint` binary (issue 12, items 13-15): every one exits 2 with a message
// naming the file, line and field or the parameter (never a stack trace, never exit 0 with a default plan),
// and nothing from a session file reaches the terminal as a control sequence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_SESSION_FILE_BYTES } from '../../src/core/importers';
import { runBuilt, scratchDir, type CliRun } from './builtCli';

/** A control character that must never reach a terminal raw: C0 but \n and \t, DEL, C1, bidi controls. */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

function assertNoStack(r: CliRun, label: string): void {
  assert.doesNotMatch(r.stderr, /RangeError|internal error|\n\s+at /, `${label}: ${r.stderr.slice(0, 500)}`);
}

function assertBadInput(r: CliRun, label: string, pattern: RegExp): void {
  assertNoStack(r, label);
  assert.equal(r.code, 2, `${label}: exit ${r.code}: ${r.stderr.slice(0, 500)}`);
  assert.equal(r.stdout, '', label);
  assert.match(r.stderr, pattern, label);
}

async function file(name: string, text: string): Promise<string> {
  const path = join(await scratchDir(), name);
  writeFileSync(path, text);
  return path;
}

const deepObject = (depth: number) => '{"a":'.repeat(depth) + '"x"' + '}'.repeat(depth);

// --- item 13: deep or huge input ------------------------------------------------------------------------

test('a 20,000-deep tool input exits 2 naming file:line:field for plan, inspect and import, not RangeError', async () => {
  const path = await file(
    'deep-input.json',
    '[{"role":"user","content":"hi"},' +
      `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":${deepObject(20_000)}}]},` +
      '{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]',
  );
  const where = /deep-input\.json:1: \[1\]\.content\[0\]\.input\.a\.a[.a]*…: nested deeper than 256 levels/;
  for (const args of [
    ['plan', path, '--strategy', 'recent-turns'],
    ['inspect', path],
    ['inspect', path, '--json'],
    ['import', path],
  ]) {
    assertBadInput(await runBuilt(...args), args.join(' '), where);
  }
});

test('a 20,000-deep tool result on line 3 of a Claude Code session exits 2 naming line 3', async () => {
  const line = (uuid: string, parent: string | null, rest: string) =>
    `{"type":"${uuid === 'u2' ? 'assistant' : 'user'}","parentUuid":${JSON.stringify(parent)},"isSidechain":false,"sessionId":"s",` +
    `"timestamp":"2026-01-01T00:00:00Z","uuid":"${uuid}",${rest}}`;
  const path = await file(
    'deep-result.jsonl',
    [
      line('u1', null, '"message":{"role":"user","content":"hi"}'),
      line('u2', 'u1', '"message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}'),
      line(
        'u3',
        'u2',
        `"toolUseResult":${deepObject(20_000)},"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}`,
      ),
    ].join('\n') + '\n',
  );
  assertBadInput(await runBuilt('plan', path, '--strategy', 'sliding-window'), 'deep result', /deep-result\.jsonl:3: toolUseResult\.a\.a/);
});

test('a 10 MB run of one letter is counted: plan and inspect exit 0', async () => {
  const path = await file('long-run.json', JSON.stringify([{ role: 'user', content: 'a'.repeat(10_000_000) }]));
  const plan = await runBuilt('plan', path, '--strategy', 'recent-turns', '--json');
  assertNoStack(plan, 'plan');
  assert.equal(plan.code, 0, plan.stderr);
  assert.ok((JSON.parse(plan.stdout) as { tokensBefore: number }).tokensBefore > 100_000);
  const inspect = await runBuilt('inspect', path);
  assert.equal(inspect.code, 0, inspect.stderr);
  assert.match(inspect.stdout, /context {6}1 messages, [\d,]+ tokens/);
});

test('plan /dev/zero, a FIFO, a directory and a file over the size limit exit 2 at once, naming the file', async () => {
  const dir = await scratchDir();
  const fifo = join(dir, 'hostile.fifo');
  execFileSync('mkfifo', [fifo]);
  mkdirSync(join(dir, 'folder.jsonl'));
  const huge = join(dir, 'huge.jsonl');
  writeFileSync(huge, '');
  truncateSync(huge, MAX_SESSION_FILE_BYTES + 1); // sparse
  const link = join(dir, 'zero-link.jsonl');
  symlinkSync('/dev/zero', link);
  const started = Date.now();
  const cases: Array<[string, RegExp]> = [
    ['/dev/zero', /\/dev\/zero: not a regular file \(a character device\)/],
    [link, /zero-link\.jsonl: not a regular file \(a character device\)/],
    [fifo, /hostile\.fifo: not a regular file \(a FIFO/],
    [join(dir, 'folder.jsonl'), /folder\.jsonl: not a regular file \(a directory\)/],
    [huge, /huge\.jsonl: the file is 256\.0 MiB, larger than the 256 MiB limit/],
  ];
  for (const [path, pattern] of cases) assertBadInput(await runBuilt('plan', path, '--strategy', 'recent-turns'), path, pattern);
  assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
});

// --- item 14: parameter mistakes ------------------------------------------------------------------------

test('--param mistakes exit 2 naming the parameter: prototype keys, repeats, hex, exponents and other non-decimals', async () => {
  const session = 'examples/session.jsonl';
  const plan = (...params: string[]) => runBuilt('plan', session, '--strategy', 'recent-turns', ...params.flatMap((p) => ['--param', p]));
  const takes = /\(it takes: turns, perTurnFraction, perTurnMin, perTurnMax\)/;
  const cases: Array<[string[], RegExp]> = [
    [['__proto__=1'], /recent-turns: parameter __proto__ is not a parameter of this strategy/],
    [['constructor=1'], /parameter constructor is not a parameter of this strategy/],
    [['toString=3'], /parameter toString is not a parameter of this strategy/],
    [['hasOwnProperty=3'], /parameter hasOwnProperty is not a parameter/],
    [['turns=1', 'turns=3'], /parameter turns is given more than once \("1" and "3"\)/],
    [['turns=3', 'turns=3'], /parameter turns is given more than once/],
    [['turns=0x10'], /parameter turns must be a number, got "0x10"/],
    [['turns=1e3'], /parameter turns must be a number, got "1e3"/],
    [['turns=0b11'], /got "0b11"/],
    [['turns=0o7'], /got "0o7"/],
    [['turns= 3'], /got " 3"/],
    [['turns=3 '], /got "3 "/],
    [['turns=+3'], /got "\+3"/],
    [['turns=Infinity'], /got "Infinity"/],
    [['turns=1_000'], /got "1_000"/],
    [['turns=.5'], /got "\.5"/],
    [['perTurnFraction=5.'], /got "5\."/],
    [['turns='], /parameter turns must be a number, got ""/],
    [['turns=٣'], /got "٣"/],
  ];
  for (const [params, pattern] of cases) {
    const r = await plan(...params);
    assertBadInput(r, params.join(' '), pattern);
    if (/is not a parameter/.test(pattern.source)) assert.match(r.stderr, takes, params.join(' '));
  }
  const ok = await plan('turns=3', 'perTurnFraction=0.5');
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^strategy\s+recent-turns turns=3 perTurnFraction=0.5 /m);
});

test('numeric flags take decimal integers in their documented range: hex, exponents, huge and non-decimal values exit 2 naming flag and range', async () => {
  const session = 'examples/session.jsonl';
  const plan = (...flags: string[]) => runBuilt('plan', session, '--strategy', 'recent-turns', ...flags);
  const cases: Array<[string[], RegExp]> = [
    [['--window', '0x10'], /--window must be a positive integer, got "0x10" \(decimal digits, 1 to 10000000\)/],
    [['--window', '1e21'], /--window must be a positive integer, got "1e21" \(decimal digits, 1 to 10000000\)/],
    [['--window', '1e3'], /--window .*got "1e3"/],
    [['--window', '10000001'], /--window .*got "10000001" \(decimal digits, 1 to 10000000\)/],
    [['--window', ' 300'], /--window .*got " 300"/],
    [['--window', '+300'], /--window .*got "\+300"/],
    [['--window', '300.0'], /--window .*got "300\.0"/],
    [['--window', '0b11'], /--window .*got "0b11"/],
    [['--window', '٣٠٠'], /--window .*got "٣٠٠"/],
    [['--max-output', '0o7'], /--max-output must be a positive integer, got "0o7" \(decimal digits, 1 to 1000000\)/],
    [['--max-output', '2000000'], /--max-output .*\(decimal digits, 1 to 1000000\)/],
    [['--at', '1e0'], /--at must be a positive integer, got "1e0" \(decimal digits, 1 to 1000000\)/],
  ];
  for (const [flags, pattern] of cases) assertBadInput(await plan(...flags), flags.join(' '), pattern);
  const ok = await plan('--window', '10000000', '--max-output', '0001000');
  assert.equal(ok.code, 0, ok.stderr);
  const inspect = await runBuilt('inspect', session, '--window', '0x10');
  assertBadInput(inspect, 'inspect --window 0x10', /--window must be a positive integer, got "0x10"/);
});

// --- item 15: terminal escapes ---------------------------------------------------------------------------

const HOSTILE =
  'hi \u001b]0;PWNED\u0007 \u001b[2J\u001b[H \u009b31m \u009d0;t\u009c \u007f \r\b fake \u202eevil\u202c \u2066x\u2069 \u200f\u061c';

function assertTerminalSafe(r: CliRun, label: string): void {
  const raw = RAW_CONTROL.exec(r.stdout) ?? RAW_CONTROL.exec(r.stderr);
  assert.equal(raw, null, `${label}: raw U+${raw?.[0].codePointAt(0)?.toString(16).padStart(4, '0')} reaches the terminal`);
}

test('plan and inspect escape ESC/OSC/CSI, C1, DEL, CR and bidi controls from the session in tables, text and errors', async () => {
  const esc = (s: string | null) => JSON.stringify(s);
  const base = (uuid: string, parent: string | null) =>
    `"parentUuid":${esc(parent)},"isSidechain":false,"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","uuid":${esc(uuid)}`;
  const u1 = `u1${HOSTILE}`;
  const path = await file(
    'hostile\u001b]0;name\u0007.jsonl',
    [
      `{"type":"user",${base(u1, null)},"message":{"role":"user","content":${esc(HOSTILE)}}}`,
      `{"type":"assistant",${base('u2', u1)},"message":{"role":"assistant","model":${esc(`claude${HOSTILE}`)},` +
        `"content":[{"type":"text","text":${esc(HOSTILE)}}],"usage":{"input_tokens":10,"output_tokens":5}}}`,
      // A tool result with no call: its import warning quotes the hostile id.
      `{"type":"user",${base('u3', 'u2')},"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":${esc(`t${HOSTILE}`)},"content":"x"}]}}`,
    ].join('\n') + '\n',
  );
  const runs: Array<[string, CliRun]> = [
    ['plan', await runBuilt('plan', path, '--strategy', 'sliding-window', '--param', 'maxEvents=1')],
    ['inspect', await runBuilt('inspect', path)],
    ['plan --json', await runBuilt('plan', path, '--strategy', 'sliding-window', '--json')],
    ['inspect --json', await runBuilt('inspect', path, '--json')],
    ['import', await runBuilt('import', path)],
  ];
  for (const [label, r] of runs) {
    assert.equal(r.code, 0, `${label}: ${r.stderr}`);
    assertTerminalSafe(r, label);
  }
  const [plan, inspect, planJson, inspectJson, imported] = runs.map(([, r]) => r);
  assert.match(plan.stdout, /hi \\u001b\]0;PWNED\\u0007/, 'shown, escaped');
  assert.match(plan.stdout, /\\u202eevil/);
  assert.match(inspect.stdout, /model claudehi \\u001b\]0;PWNED/);
  assert.match(inspect.stdout, /\\u009b31m/);
  // JSON stays JSON and means the same: the escapes are JSON's own.
  const messages = (JSON.parse(planJson.stdout) as { messages: Array<{ content: unknown }> }).messages;
  assert.ok(
    JSON.stringify(messages).includes(JSON.stringify(HOSTILE).slice(1, -1)) ||
      messages.some((m) => JSON.stringify(m.content).includes('PWNED')),
  );
  assert.equal((JSON.parse(inspectJson.stdout) as { model: string }).model, `claude${HOSTILE}`);
  const lines = imported.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { content?: unknown });
  assert.ok(
    lines.some((l) => l.content === HOSTILE),
    'import keeps the text exactly',
  );
});

test('a one-line field cannot fake output lines: newlines in ids, model and warnings are shown escaped', async () => {
  const path = await file(
    'newlines.jsonl',
    [
      JSON.stringify({ id: 'm1\nresult     keep 999', role: 'user', content: 'hi' }),
      JSON.stringify({ id: 'm2', role: 'assistant', content: 'ok' }),
    ].join('\n') + '\n',
  );
  const r = await runBuilt('plan', path, '--strategy', 'sliding-window');
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /^result {5}keep 999/m);
  assert.match(r.stdout, /m1\\nresult/);
});

test('errors quoting hostile file content and file names are escaped on stderr', async () => {
  const path = await file(`bad\u001b[31mname\u009b.jsonl`, `{"id":"m1","role":"user\u009b2J\u202e","content":"x"}\n`);
  const r = await runBuilt('plan', path, '--strategy', 'sliding-window');
  assert.equal(r.code, 2);
  assertTerminalSafe(r, 'error');
  assert.match(r.stderr, /bad\\u001b\[31mname\\u009b\.jsonl:1: /);
});
