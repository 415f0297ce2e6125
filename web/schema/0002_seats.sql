-- A seat lets one phone act for one player, on that player's turn only; the game's token still does everything.
CREATE TABLE seats (
    game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    player INTEGER NOT NULL CHECK (player >= 0),   -- index into the game's players
    token TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    PRIMARY KEY (game_id, player)
);
