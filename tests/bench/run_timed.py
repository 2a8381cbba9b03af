#!/usr/bin/env python3
"""Runs a command and writes what it cost, for bench_common.sh's bench_run.

    run_timed.py OUT COMMAND...

Writes "user_s sys_s peak_rss_kib voluntary_switches" to OUT, the CPU times
to the microsecond (GNU time prints them to 10 ms: at 1000 requests/s over
10 s, 1 us per request). The figures are wait4's for the command, its reaped
descendants included, as GNU time gives them. Exits with the command's status
(128 + N when signal N ended it).
"""
import os
import sys


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: run_timed.py OUT COMMAND...", file=sys.stderr)
        return 2
    out, argv = sys.argv[1], sys.argv[2:]
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        except OSError as error:
            print(f"run_timed.py: cannot run {argv[0]}: {error.strerror}", file=sys.stderr)
        os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    with open(out, "w", encoding="ascii") as f:
        f.write(f"{usage.ru_utime:.6f} {usage.ru_stime:.6f} {usage.ru_maxrss} {usage.ru_nvcsw}\n")
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
