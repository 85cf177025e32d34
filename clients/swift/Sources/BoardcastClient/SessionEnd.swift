/// Why a session ended for good: `left` (the app left, or the game was left for it), `closed`
/// (the app or the client closed it), `replaced` (another connection took this place in the game)
/// or `error` (the server refused the session; `error` says how).
public struct SessionEnd: Sendable, Equatable {
    public let reason: String
    public let error: BoardcastError?
}
