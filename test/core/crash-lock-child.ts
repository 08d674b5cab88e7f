// Child process for the session lock test: takes the lock of a session file the way a second VS Code
// window would, says so on stdout, and holds it until killed. Not a test file itself.
//   node --import tsx test/core/crash-lock-child.ts FILE STALE_MS
import { lockSession } from '../../src/core/session/sessionLock';

const [file, stale] = process.argv.slice(2);
lockSession(file, () => undefined, Number(stale));
process.stdout.write('locked\n');
setInterval(() => undefined, 1000);
