import sys

from dicekeeper.cli import main

sys.exit(main())
