/// Which of a game's chat lines a member may read (PROTOCOL section 15): players their own
/// room (and the spectators' once the game is over), spectators both, and a delayed spectator
/// the players' lines only once they are as old as the delay.
extension GameRoom {
    func readableChatRooms(for session: Session) -> Set<ChatRoom> {
        session.key.isSpectators || isOver ? [.players, .spectators] : [.players]
    }

    /// The last lines a member may read now, sent after its state.
    func recentChat(for session: Session, now: Instant) -> [ChatLine] {
        chat.recent(of: readableChatRooms(for: session)) { line in
            guard session.key == .delayed, line.room == .players, let delay = GameRoom.delay(of: options) else { return true }
            return line.at + delay <= now.unixTime
        }
    }

    /// A replay's lines as this member may see them now (the rest reach a delayed spectator
    /// through the delay line).
    func replayable(_ lines: [ChatLine], for session: Session, now: Instant) -> [ChatLine] {
        guard session.key == .delayed, let delay = GameRoom.delay(of: options) else { return lines }
        return lines.filter { $0.room != .players || $0.at + delay <= now.unixTime }
    }
}
