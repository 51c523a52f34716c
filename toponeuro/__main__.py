"""``python -m toponeuro ...``: the ``toponeuro`` command (:func:`toponeuro.cli.main`), for an
environment whose scripts folder is not on ``PATH``."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
