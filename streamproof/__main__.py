import sys

from streamproof.cli import main

sys.exit(main())
