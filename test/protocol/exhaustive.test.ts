// Adding a message type to the protocol without its validator fails the type check. The test compiles
// the real validators against the real protocol, once as it is (no errors) and once with a new member
// added to each of the four message unions in memory (src/protocol/index.ts as read by the compiler):
// each validator must then fail to compile, naming the new type. A validator that quietly drops an
// unknown type at run time (`default: return null`) compiles either way, and fails this test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');
const PROTOCOL = resolve(ROOT, 'src/protocol/index.ts');

/** Each message union, the file that validates it, and the type the test adds to it. */
const UNIONS = [
  { union: 'ChatToHost', validator: 'src/protocol/validation.ts', added: 'addedChatToHostWithoutValidator' },
  { union: 'InspectorToHost', validator: 'src/protocol/validation.ts', added: 'addedInspectorToHostWithoutValidator' },
  { union: 'HostToChat', validator: 'webview/chat/hostMessages.ts', added: 'addedHostToChatWithoutValidator' },
  { union: 'HostToInspector', validator: 'webview/inspector/hostMessages.ts', added: 'addedHostToInspectorWithoutValidator' },
] as const;
const VALIDATORS = [...new Set(UNIONS.map((u) => resolve(ROOT, u.validator)))];

/** The tests' compiler options (tsconfig.json: Node and the DOM, so host and webview files compile together). */
function compilerOptions(): ts.CompilerOptions {
  const config = ts.getParsedCommandLineOfConfigFile(
    resolve(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    },
  );
  assert.ok(config, 'tsconfig.json parses');
  return { ...config.options, noEmit: true };
}

/** The protocol's source with one `{ type: added }` member at the head of each union. */
function protocolWithAddedTypes(): string {
  let text = ts.sys.readFile(PROTOCOL) ?? assert.fail(`cannot read ${PROTOCOL}`);
  for (const { union, added } of UNIONS) {
    const head = `export type ${union} =`;
    assert.ok(text.includes(head), `src/protocol/index.ts declares ${head}`);
    text = text.replace(head, `${head}\n  | { type: '${added}' }`);
  }
  return text;
}

/** The validators compiled with `protocolText` as src/protocol/index.ts: every diagnostic in the validator files. */
function compileValidators(options: ts.CompilerOptions, protocolText: string | undefined, old?: ts.Program) {
  const host = ts.createCompilerHost(options, true);
  const read = host.getSourceFile.bind(host);
  const cache = new Map<string, ts.SourceFile | undefined>();
  host.getSourceFile = (fileName, languageVersion, onError, fresh) => {
    if (protocolText !== undefined && resolve(fileName) === PROTOCOL)
      return ts.createSourceFile(fileName, protocolText, languageVersion, true);
    if (!cache.has(fileName)) cache.set(fileName, read(fileName, languageVersion, onError, fresh));
    return cache.get(fileName);
  };
  const program = ts.createProgram({ rootNames: VALIDATORS, options, host, oldProgram: old });
  const diagnostics = VALIDATORS.flatMap((file) => {
    const source = program.getSourceFile(file) ?? assert.fail(`${file} is not in the program`);
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => ({
      file: resolve(d.file?.fileName ?? ''),
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    }));
  });
  return { program, diagnostics };
}

test('a message type added to a protocol union without its validator is a compile error in that validator', () => {
  const options = compilerOptions();
  const asIs = compileValidators(options, undefined);
  assert.deepEqual(asIs.diagnostics, [], 'the validators compile against the protocol as it is');

  const extended = compileValidators(options, protocolWithAddedTypes(), asIs.program);
  for (const { union, validator, added } of UNIONS) {
    const named = extended.diagnostics.filter((d) => d.file === resolve(ROOT, validator) && d.message.includes(added));
    assert.ok(
      named.length > 0,
      `${validator} must fail to compile when ${union} gains { type: '${added}' } without a validator; ` +
        `diagnostics: ${JSON.stringify(extended.diagnostics, null, 1)}`,
    );
  }
});
