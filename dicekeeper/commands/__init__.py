"""Sub-commands of the dicekeeper command line, one module per area."""
