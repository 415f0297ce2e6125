"""`dicekeeper rules`, `score`, `odds`: the rules engine on the command line."""
