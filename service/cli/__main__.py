"""`python -m service.cli`: the `killmath` command without its installed script."""

import sys

from service.cli.main import main

sys.exit(main())
