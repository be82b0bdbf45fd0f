"""`make build`: python scripts/build.py [PROJECT]"""

import sys
from pathlib import Path

here = Path(__file__).resolve().parent
sys.path[:0] = [str(here), str(here.parent / "src")]

from tickwork_build.__main__ import main  # noqa: E402

sys.exit(main())
