import Boardcast

// The standard games and the standard page; a game developer's server is the same line with its
// own catalog (docs/GAMES.md).
Boardcast.main(games: .standard)
