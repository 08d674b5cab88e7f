// The worker thread of `splitpoint tune` (bundled as dist/tuneWorker.js beside dist/cli.js): it answers
// each TuneTask posted to it with a TuneReply, one at a time, keeping its imported sessions (tuneReplay.ts).
import { parentPort } from 'node:worker_threads';
import { TuneReplayer, type TuneTask } from './tuneReplay';

const port = parentPort;
if (!port) throw new Error('tuneWorker.ts runs as a worker thread only');
const replayer = new TuneReplayer();
port.on('message', (task: TuneTask) => {
  void replayer.run(task).then((reply) => port.postMessage(reply));
});
