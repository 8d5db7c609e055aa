"""`not CMD ARGS...`: run CMD and succeed only if it fails (like LLVM's `not`)."""

import subprocess
import sys

sys.exit(0 if subprocess.call(sys.argv[1:]) != 0 else 1)
