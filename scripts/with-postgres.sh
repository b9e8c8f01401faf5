#!/usr/bin/env bash
# Runs a command with a throw-away PostgreSQL 15 server (fresh cluster in a temporary
# folder, 127.0.0.1, free port), its URL in LEDGER_PG_URL; stops the server and removes
# the folder afterwards, also when the command fails.
#   bash scripts/with-postgres.sh node server/server.js        (with LEDGER_STORE="$LEDGER_PG_URL")
# PG_FSYNC=off skips flushing to disk (faster; tests do not check the database's own durability).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then
  echo "usage: bash scripts/with-postgres.sh <command> [args...]" >&2
  exit 2
fi
exec node --input-type=module -e '
import { startPostgres } from "./server/test/support/postgres.js";
import { spawn } from "node:child_process";
const pg = await startPostgres({ fsync: process.env.PG_FSYNC !== "off" });
console.error(`PostgreSQL at ${pg.url}`);
const child = spawn(process.argv[1], process.argv.slice(2), {
  stdio: "inherit", env: { ...process.env, LEDGER_PG_URL: pg.url },
});
// Signals go to the command; the server is stopped once it has exited.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
  pg.stop();
  process.exit(code ?? (signal ? 1 : 0));
});
' "$@"
