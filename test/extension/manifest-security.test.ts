// package.json: settings that move data or secrets cannot be set by a workspace (machine scope) and
// are restricted in untrusted workspaces; the host's list of them and the manifest agree.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SENSITIVE_SETTINGS } from '../../src/settings/settingsModel';

interface Manifest {
  capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations?: string[] } };
  contributes: { configuration: { properties: Record<string, { scope?: string }> } };
}
const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as Manifest;
const properties = manifest.contributes.configuration.properties;
const restricted = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations ?? [];

test('splitpoint.baseUrl, splitpoint.instructions and splitpoint.transcriptFolder are the sensitive settings', () => {
  assert.deepEqual([...SENSITIVE_SETTINGS].map((k) => `splitpoint.${k}`).sort(), [
    'splitpoint.baseUrl',
    'splitpoint.instructions',
    'splitpoint.transcriptFolder',
  ]);
});

test('every sensitive setting is machine- or application-scoped (a workspace cannot set it)', () => {
  for (const key of SENSITIVE_SETTINGS) {
    const p = properties[`splitpoint.${key}`];
    assert.ok(p, `splitpoint.${key} is contributed`);
    assert.ok(p.scope === 'machine' || p.scope === 'application', `splitpoint.${key} scope is ${p.scope}`);
  }
});

test('every sensitive setting is listed in capabilities.untrustedWorkspaces.restrictedConfigurations', () => {
  for (const key of SENSITIVE_SETTINGS) assert.ok(restricted.includes(`splitpoint.${key}`), `splitpoint.${key} is restricted`);
  for (const key of restricted) assert.ok(properties[key], `${key} (restricted) is a contributed setting`);
});
