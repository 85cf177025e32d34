import Core

extension Hub {
    /// Rebuilds every stored game by replaying its commands through Core, with the
    /// same history, seq and applied client ids it had. A plane's selections belong
    /// to connections that are gone, so they are removed (as `leave` diffs) afterwards.
    public func restore(from store: any GameStore) throws {
        for stored in try store.games() {
            guard let kind = GameKind(rawValue: stored.kind) else {
                throw RestoreError(game: stored.id, detail: "unknown kind \(stored.kind)")
            }
            let game: AnyGame
            do {
                game = try AnyGame.restore(kind: kind, options: stored.options, time: stored.created)
            } catch {
                throw RestoreError(game: stored.id, detail: "options: \(error.message)")
            }
            let room = GameRoom(id: stored.id, game: game, tokenHash: stored.tokenHash, options: stored.options,
                                created: stored.created)
            for command in try store.commands(game: stored.id, after: 0) {
                try replay(command, in: room)
            }
            guard room.seq == stored.seq else {
                throw RestoreError(game: stored.id, detail: "replay reached seq \(room.seq), stored seq is \(stored.seq)")
            }
            room.updated = max(room.updated, stored.updated)
            adopt(room)
            if case .plane(let plane) = room.game {
                for player in plane.selectedPlayers { dropSelection(of: player, in: room) }
            }
        }
    }

    private func replay(_ command: StoredCommand, in room: GameRoom) throws {
        room.notePlayerSeen(command.player)
        let fail = { (why: String) in RestoreError(game: room.id, detail: "command \(command.seq): \(why)") }
        guard command.seq == room.seq + 1 else { throw fail("out of order after seq \(room.seq)") }
        guard let type = command.command["type"]?.stringValue else { throw fail("no type") }
        let gameCommand: GameCommand
        let cause: JSON
        if type == "leave" {
            gameCommand = .plane(.leave)
            cause = .object(["type": "leave"])
        } else {
            do {
                let parsed = try GestureParser.parse(type: type, message: command.command, kind: room.kind)
                gameCommand = parsed.command
                cause = parsed.cause
            } catch {
                throw fail(error.message)
            }
        }
        switch room.game.apply(gameCommand, context: MoveContext(player: command.player, time: command.time)) {
        case .success(let outcome):
            let causeWithBy = JSON.object((cause.objectPairs ?? []) + [("by", .string(command.player))])
            _ = room.record(diff: outcome.diff, cause: causeWithBy, clientID: command.clientID, time: command.time)
        case .failure(let error):
            throw fail("refused on replay: \(error)")
        }
    }
}

/// A stored game that does not replay to what was stored: the server refuses to start.
public struct RestoreError: Error, CustomStringConvertible {
    public var game: String
    public var detail: String
    public var description: String { "stored game \(game) cannot be rebuilt: \(detail)" }
}
