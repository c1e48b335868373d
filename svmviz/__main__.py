"""``python -m svmviz`` is the ``svmviz`` command."""

import sys

from svmviz.cli import main

sys.exit(main())
