import Core

/// What the spectators of a game with a delay see (PROTOCOL section 15): the game as it was
/// `delay` seconds ago, kept as one lagging copy advanced by applying each command again as it
/// comes due, and one queue of what is due to them next. The queue holds the frames the players
/// got (shared, never copied per spectator): one cursor for the whole delayed audience.
struct DelayLine {
    let delay: Double
    /// The game as spectators see it now, and its seq.
    private(set) var game: AnyGame
    private(set) var seq: Int
    private var queue: [Item] = []
    private var head = 0

    struct Item {
        var due: Instant
        var output: Output
    }

    enum Output {
        /// A diff: the spectators' frame, and the command that made it (to advance the copy).
        case diff(seq: Int, frame: OutFrame, command: AppliedCommand)
        /// An event, presence or a chat line: the frame as it is.
        case frame(OutFrame)
    }

    init(delay: Double, game: AnyGame, seq: Int) {
        self.delay = delay
        self.game = game
        self.seq = seq
    }

    var isEmpty: Bool { head == queue.count }
    /// When the oldest output waiting comes due.
    var nextDue: Instant? { head < queue.count ? queue[head].due : nil }
    /// The seq of the newest diff waiting (the spectators' seq when none is).
    var lastQueuedSeq: Int {
        for item in queue[head...].reversed() { if case .diff(let seq, _, _) = item.output { return seq } }
        return seq
    }

    /// Something the players got now reaches the spectators `delay` seconds later.
    mutating func push(_ output: Output, now: Instant) {
        queue.append(Item(due: now + delay, output: output))
    }

    /// Everything now due, in order; the lagging copy advances past each diff.
    mutating func release(now: Instant) -> [Output] {
        var due: [Output] = []
        while head < queue.count, queue[head].due <= now {
            let output = queue[head].output
            head += 1
            if case .diff(let seq, _, let command) = output {
                // The same command, the same player and time: the same state the players saw.
                _ = game.apply(command.command, context: MoveContext(player: command.player, time: command.time))
                self.seq = seq
            }
            due.append(output)
        }
        if head == queue.count {
            queue.removeAll(keepingCapacity: queue.count <= 64)
            head = 0
        } else if head > 256 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return due
    }
}

/// A command as it was applied: what applying it again needs.
struct AppliedCommand: Sendable, Equatable {
    var command: GameCommand
    var player: String
    var time: Double
}

/// One line of a game's chat.
struct ChatLine: Sendable, Equatable {
    /// Its place in the game's chat (1, 2, ...).
    var number: Int
    /// The game's seq when it was said (replay shows it after that diff).
    var seq: Int
    var room: ChatRoom
    var by: String
    var text: String
    /// Unix seconds.
    var at: Double
    /// A signed-in spectator's name (section 19), while the line is in memory; a player's comes
    /// from the game's users.
    var name: String? = nil

    func frame(game: String, name: String? = nil) -> OutFrame {
        ServerMessage.chat(game: game, room: room, by: by, text: text, at: at, number: number, name: name).frame
    }
}

/// The last lines of each chat room of a game, for those who join (the rest is in storage).
struct ChatLog {
    /// What a member is sent after its state: the last lines of the rooms it may read.
    static let kept = 50
    private(set) var lastNumber = 0
    private var lines: [ChatRoom: [ChatLine]] = [:]
    /// Lines kept per room: `kept`, or every line where nothing is stored (`--data :memory:`).
    private let capacity: Int

    init(recent: [ChatLine] = [], keepsEverything: Bool = false) {
        capacity = keepsEverything ? .max : Self.kept
        for line in recent.sorted(by: { $0.number < $1.number }) { keep(line) }
    }

    mutating func add(room: ChatRoom, by: String, text: String, seq: Int, at: Double, name: String? = nil) -> ChatLine {
        lastNumber += 1
        let line = ChatLine(number: lastNumber, seq: seq, room: room, by: by, text: text, at: at, name: name)
        keep(line)
        return line
    }

    private mutating func keep(_ line: ChatLine) {
        lastNumber = max(lastNumber, line.number)
        lines[line.room, default: []].append(line)
        if lines[line.room]!.count > capacity { lines[line.room]!.removeFirst() }
    }

    /// Every line kept of these rooms said at seq `through` or before, in order (a replay's,
    /// where nothing is stored).
    func all(of rooms: Set<ChatRoom>, through seq: Int) -> [ChatLine] {
        rooms.flatMap { lines[$0] ?? [] }.filter { $0.seq <= seq }.sorted { $0.number < $1.number }
    }

    /// The last `kept` lines of these rooms that pass `visible`, in the order they were said.
    func recent(of rooms: Set<ChatRoom>, where visible: (ChatLine) -> Bool = { _ in true }) -> [ChatLine] {
        let merged = rooms.flatMap { lines[$0] ?? [] }.filter(visible).sorted { $0.number < $1.number }
        return Array(merged.suffix(Self.kept))
    }
}

extension ChatLine {
    init?(stored: StoredChat) {
        guard let room = ChatRoom(rawValue: stored.room) else { return nil }
        self.init(number: stored.number, seq: stored.seq, room: room, by: stored.by, text: stored.text, at: stored.at)
    }

    func stored(game: String) -> StoredChat {
        StoredChat(game: game, number: number, seq: seq, room: room.rawValue, by: by, text: text, at: at)
    }
}
