// One module reads the settings from VS Code: src/extension/settings.ts. Every other host file gets
// them from it (a SettingsReader in its constructor, or its functions), so a default or a scope rule
// (user-only settings) cannot be bypassed by a feature that reads the configuration itself.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const THE_READER = join('src', 'extension', 'settings.ts');

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (/\.(ts|tsx|mts|cts)$/.test(entry.name)) out.push(path);
  }
  return out;
}

test('no file in src/ other than src/extension/settings.ts calls getConfiguration', () => {
  const files = sourceFiles('src');
  assert.ok(files.includes(THE_READER), `${THE_READER} exists`);
  const callers = files.filter((f) => f !== THE_READER && /\bgetConfiguration\s*\(/.test(readFileSync(f, 'utf8')));
  assert.deepEqual(callers, []);
  assert.match(readFileSync(THE_READER, 'utf8'), /\bgetConfiguration\s*\(/);
});
