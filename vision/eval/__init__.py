"""Measuring the reader: labelled photo sets (`LabelledImage`) and their scores (`Evaluation`)."""
