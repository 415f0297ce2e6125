"""Domain-randomised training scenes for the dice detector and the face classifier.

`tables` draws table surfaces, `clutter` draws things that are not six-sided dice, and
`scenes` puts dice, clutter, trays, light and a camera together into a `SceneSample`: a
frame with the centre and box of every die's top face. Colours are BGR.
"""
