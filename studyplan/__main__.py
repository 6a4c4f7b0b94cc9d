"""The process entry point (`studyplan` and `python -m studyplan`): Ctrl-C at any moment exits 130.

The handler is installed before anything else is imported. Python's own handler raises KeyboardInterrupt,
and one raised while the command line is still being imported escapes every handler and kills the process
with SIGINT (-2); this one makes such an early Ctrl-C a plain exit 130. Once the command line is loaded, the
usual KeyboardInterrupt comes back, so a run in progress still closes its files (run_cli reports it).
"""

import signal
import sys
from types import FrameType

EXIT_INTERRUPTED = 130  # as studyplan.cli.exit_codes, which is not imported yet


def _exit_interrupted(_signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(EXIT_INTERRUPTED)


signal.signal(signal.SIGINT, _exit_interrupted)


def main() -> None:
    try:
        from studyplan.cli.main import run_cli

        signal.signal(signal.SIGINT, signal.default_int_handler)
        code = run_cli()
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    sys.exit(code)


if __name__ == "__main__":
    main()
