import sys

from desktop_rag.cli import main

sys.exit(main())
