# Sourced by the bench scripts: how a script stops what it started, however it ends.
#
# `stop_pids PID...` signals each process by its id and waits for it; an empty or 0 id is
# skipped. Never `kill 0` (or `kill ""`): 0 is the script's own process group, and the script
# would die there, before it stopped the rest (the peer harness's nginx instances were left
# running that way). An interrupt or a `timeout` ends the script through its EXIT trap.

stop_pids() {
  local p
  for p in "$@"; do
    if [ -n "$p" ] && [ "$p" != 0 ]; then kill "$p" 2>/dev/null || true; fi
  done
  for p in "$@"; do
    if [ -n "$p" ] && [ "$p" != 0 ]; then wait "$p" 2>/dev/null || true; fi
  done
}

trap 'exit 130' INT
trap 'exit 143' TERM
