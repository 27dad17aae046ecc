import sys

from desktop_rag.cli import main

if __name__ == "__main__":  # not when a spawned child process (the app's vector store) imports it
    sys.exit(main())
