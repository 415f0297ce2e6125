"""dicekeeper: the command line that wires the rules engine, the dice reader and the web app.

It owns argument parsing and printing only (`dicekeeper.commands`, one module per area);
the work is done by `scorekeeper`, `vision` and `web`.
"""

__version__ = "0.1.0"
