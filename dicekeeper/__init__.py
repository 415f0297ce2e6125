"""dicekeeper: the command line that wires the rules engine, the dice reader and the web app."""

__version__ = "0.1.0"
