"""Learning a table: die pictures the players confirmed, and a reader that adapts to them.

`memory` keeps each confirmed die's crop with its true face and what the reader had said;
`neighbours` builds from them a nearest-neighbour head that corrects the reader's values on that
table. The reader itself is never changed: `AdaptedReader` wraps its output.
"""
