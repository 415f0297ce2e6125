-- A game nobody will finish can be set aside: it stays in the history, below the others, and out of the stats.
ALTER TABLE games ADD COLUMN abandoned_at TEXT;
