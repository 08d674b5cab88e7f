// The webviews run in a browser: their files, and the protocol files they import, type-check with the
// DOM and without Node's types. tsconfig.webview.json has to include Node's types because the
// protocol's types come in part from src/core (which runs in Node) and tsc checks every file a
// program reaches; this test holds the webviews' own files to the browser instead: the same program
// without Node's types, diagnostics kept for webview/ and src/protocol/ only (core's are the host's
// check).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');
const BROWSER_FOLDERS = ['webview', 'src/protocol'].map((f) => resolve(ROOT, f) + sep);

function webviewProgram(types: string[]): ts.Program {
  const config = ts.getParsedCommandLineOfConfigFile(
    resolve(ROOT, 'tsconfig.webview.json'),
    { types },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    },
  );
  assert.ok(config, 'tsconfig.webview.json parses');
  assert.ok(config.fileNames.length > 0, 'tsconfig.webview.json includes the webview files');
  return ts.createProgram({ rootNames: config.fileNames, options: { ...config.options, types, noEmit: true } });
}

/** Diagnostics of the program's files under webview/ and src/protocol/, as `path:line: message`. */
function browserDiagnostics(program: ts.Program): string[] {
  return program
    .getSourceFiles()
    .filter((f) => BROWSER_FOLDERS.some((folder) => resolve(f.fileName).startsWith(folder)))
    .flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)])
    .map((d) => {
      const where = d.file ? `${relative(ROOT, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
      return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
}

test('the webviews and the protocol type-check without Node’s types (only core, which the protocol’s types come from, needs them)', () => {
  const program = webviewProgram([]);
  const checked = program.getSourceFiles().filter((f) => BROWSER_FOLDERS.some((folder) => resolve(f.fileName).startsWith(folder)));
  assert.ok(
    checked.some((f) => f.fileName.endsWith('src/protocol/index.ts')),
    'the program reaches the protocol',
  );
  assert.deepEqual(browserDiagnostics(program), []);
});
