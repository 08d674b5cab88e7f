// The environment run_command's children get: the host's, without secrets. A command the user
// approved still should not see the API key it runs under (nor cloud or registry credentials) unless
// it is given them explicitly. The documented pattern list (names compared case-insensitively):
//   *_API_KEY, *_APIKEY, *_TOKEN, *_AUTHTOKEN, *_SECRET, *_SECRET_KEY, *_SECRET_ACCESS_KEY,
//   *_PASSWORD, *_PASSWD, *_CREDENTIALS, *_PRIVATE_KEY, *_ACCESS_KEY, and the names API_KEY, TOKEN,
//   SECRET, PASSWORD; every AWS_* and ANTHROPIC_* variable.
// SSH_AUTH_SOCK and VS Code's git askpass variables stay (they lend access without revealing a key).

const SECRET_NAME =
  /(^|_)(API_?KEY|(AUTH_?)?TOKEN|SECRET|SECRET_KEY|SECRET_ACCESS_KEY|PASSWORD|PASSWD|CREDENTIALS|PRIVATE_KEY|ACCESS_KEY)$/i;
const SECRET_PREFIX = /^(AWS|ANTHROPIC)_/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) || SECRET_PREFIX.test(name);
}

/** `env` without the variables isSecretName matches, and their names. */
export function scrubSecrets(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; dropped: string[] } {
  const kept: NodeJS.ProcessEnv = {};
  const dropped: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (isSecretName(k)) dropped.push(k);
    else kept[k] = v;
  }
  return { env: kept, dropped };
}

/** The default environment of a command: the host's without secrets, with pagers and prompts off. */
export function defaultCommandEnv(): NodeJS.ProcessEnv {
  return { ...scrubSecrets(process.env).env, PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' };
}
