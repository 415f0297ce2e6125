-- A game nobody will finish can be set aside: it stays in the history, below the others, and out of the stats.
ALTER TABLE games ADD COLUMN abandoned_at TEXT;
-- The game a rematch started from this one, so a second Rematch joins it instead of starting another.
ALTER TABLE games ADD COLUMN rematch_id INTEGER REFERENCES games (id) ON DELETE SET NULL;
