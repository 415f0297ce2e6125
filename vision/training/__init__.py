"""Training data for the die-face classifier: crops cut from labelled photos and from rendered scenes.

Used by the scripts under `datasets/`; nothing at run time imports it.
"""
