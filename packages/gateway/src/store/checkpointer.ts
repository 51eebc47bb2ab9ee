// Checkpoints of the embedded SQLite store's write-ahead log, off the event loop. By default SQLite checkpoints on the
// connection that commits: every 1,000 pages of WAL, the commit that crosses the line also copies those pages into the
// database file and syncs both files, and the gateway's event loop waits for it (measured with the idempotency
// table's inserts: that copy and its two fsyncs were 45 % of the time a write took on the event loop). Here a worker
// thread with a connection of its own runs a PASSIVE checkpoint every `intervalMs`; a passive checkpoint never waits
// for, and never blocks, the gateway's readers and writer. The serving connection keeps an automatic checkpoint only
// as a backstop, at `backstopPages`: SQLite starts the log over only when every frame has been copied as a write
// begins, which a steady stream of writes can keep from happening; the backstop then copies what the worker has not
// yet (at most `intervalMs` of writes), and the log starts over. A worker that fails hands checkpoints back to the
// serving connection (SQLite's default) and is started again after a delay that doubles with each failure.
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type SQLite from "better-sqlite3";

export interface CheckpointerOptions {
  intervalMs?: number;
  backstopPages?: number;
  /** Delay before a failed worker is started again; doubles after each failure, up to `maxRestartDelayMs`. */
  restartDelayMs?: number;
  maxRestartDelayMs?: number;
  /**
   * Called when a worker fails; the serving connection has gone back to SQLite's own checkpoints by then, and a new
   * worker starts in `restartInMs`.
   */
  onError(error: Error, restartInMs: number): void;
  /** Called after each checkpoint that copied frames (tests); without it the worker posts nothing. */
  onCheckpoint?: ((result: CheckpointResult) => void) | undefined;
}

/** What `PRAGMA wal_checkpoint(PASSIVE)` answered: frames in the log, and how many of them are in the database. */
export interface CheckpointResult {
  logFrames: number;
  checkpointedFrames: number;
}

export interface Checkpointer {
  /** Stops the worker and closes its connection (the serving connection, closed last, checkpoints what is left). */
  close(): Promise<void>;
  /** The current worker (tests stop it to see the serving connection take checkpoints back, then a new one start). */
  readonly worker: Worker;
}

/** SQLite's default automatic checkpoint, restored while no worker runs. */
const sqliteDefaultPages = 1_000;

// Plain CommonJS run by the worker (eval: the bundle has no separate file for it). A failed checkpoint is an error
// the main thread reports; the worker then ends, and the serving connection checkpoints as SQLite does by default.
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
let last = -1;
const timer = setInterval(() => {
  const [row] = db.pragma("wal_checkpoint(PASSIVE)");
  if (workerData.report && row.busy === 0 && row.checkpointed > 0 && row.checkpointed !== last) {
    parentPort.postMessage({ logFrames: row.log, checkpointedFrames: row.checkpointed });
  }
  last = row.checkpointed;
}, workerData.intervalMs);
parentPort.on("message", () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export function startCheckpointer(
  serving: SQLite.Database,
  file: string,
  {
    intervalMs = 100,
    backstopPages = 16_384,
    restartDelayMs = 1_000,
    maxRestartDelayMs = 60_000,
    onError,
    onCheckpoint,
  }: CheckpointerOptions,
): Checkpointer {
  // After a backstop checkpoint the log starts over from its beginning; a file left larger than this is cut back.
  const pageSize = serving.pragma("page_size", { simple: true }) as number;
  serving.pragma(`journal_size_limit = ${backstopPages * pageSize}`);
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  let closed = false;
  let delay = restartDelayMs;
  let restart: NodeJS.Timeout | undefined;

  const run = () => {
    serving.pragma(`wal_autocheckpoint = ${backstopPages}`);
    const startedAt = Date.now();
    const worker = new Worker(workerSource, {
      eval: true,
      workerData: { driver, file, intervalMs, report: onCheckpoint !== undefined },
    });
    worker.unref();
    let failed = false;
    const fail = (error: Error) => {
      if (failed || closed) return;
      failed = true;
      if (serving.open) serving.pragma(`wal_autocheckpoint = ${sqliteDefaultPages}`);
      // A worker that ran long enough before failing starts the doubling over.
      if (Date.now() - startedAt > maxRestartDelayMs) delay = restartDelayMs;
      const restartInMs = delay;
      delay = Math.min(delay * 2, maxRestartDelayMs);
      restart = setTimeout(() => {
        if (!closed && serving.open) current = run();
      }, restartInMs).unref();
      onError(error, restartInMs);
    };
    if (onCheckpoint) worker.on("message", onCheckpoint);
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`The checkpoint worker stopped (exit code ${code})`)));
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    return {
      worker,
      async stop() {
        // Held until it has exited: an unreferenced worker would let a process with nothing else left end before the
        // exit arrives, with this promise (and whoever awaits the store's close) never settled.
        worker.ref();
        if (!failed) worker.postMessage("close");
        await exited;
      },
    };
  };

  let current = run();
  let closing: Promise<void> | undefined;
  return {
    get worker() {
      return current.worker;
    },
    close() {
      closed = true;
      clearTimeout(restart);
      closing ??= current.stop();
      return closing;
    },
  };
}
