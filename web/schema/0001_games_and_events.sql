-- A game is written once; everything that happens afterwards is a new row in `events`.
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    players TEXT NOT NULL,        -- JSON list of names, in turn order
    rules TEXT NOT NULL,          -- JSON of Ruleset.to_dict()
    source TEXT NOT NULL CHECK (source IN ('virtual', 'manual', 'camera')),
    token TEXT NOT NULL UNIQUE
);

CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL CHECK (seq >= 1),   -- 1 for the first event; equals the game version after it
    event TEXT NOT NULL,                     -- JSON of the engine event's to_dict()
    created_at TEXT NOT NULL,
    UNIQUE (game_id, seq)
);
