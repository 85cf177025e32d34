// The game interface under the name a game developer's package imports (`import BoardcastCore`):
// a package of rules depends on this product alone, nothing of the server.
@_exported import Core
