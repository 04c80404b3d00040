"""`make run`'s process manager: honcho, ending the way a person expects.

Ctrl-C or SIGTERM is a requested stop: once every process has stopped the run prints «Stopped.» and exits 0
(make then reports no error). A process that dies on its own still stops the others and fails the run with
its exit code.
"""

import signal
import subprocess
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    # The same process group: the terminal's Ctrl-C reaches honcho too.
    honcho = subprocess.Popen([str(Path(sys.executable).with_name("honcho")), *argv])  # noqa: S603 — our own argv
    requested = False

    def stop(signum, frame):
        nonlocal requested
        requested = True
        honcho.send_signal(signum)  # a SIGTERM sent to make reaches only this process; honcho stops once

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    code = honcho.wait()
    if requested:
        print("Stopped.", flush=True)
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
