// The frame parser: any bytes a client sends go through `ClientMessageParser.parse`
// (JSON or a shorthand line; ids, types, pointers) and, for a game command, through
// `Gesture.parse(type:message:kind:)` for every kind, as the hub would once it knows
// the game's kind. Nothing may crash; every refusal is a ProtocolError with a code the
// parser may give; the replies the server would send (error with the id, the command's
// `cause` and stored form, a created game's stored options) encode to JSON that parses
// back to the same value; a created game restores from its stored options as it was.
import Core
import FuzzSupport
@testable import Realtime

/// A verifier with a secret no fuzzed input knows: every token must be refused, none may crash it.
private let fuzzVerifier = TokenVerifier(keys: [try! AuthKey.hs256(id: "fuzz", secret: Array("a secret the fuzzer never guesses 0123".utf8))])

@_cdecl("fuzz_frames_main")
func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzzMain(argc, argv, fuzzOne)
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let what = String(decoding: bytes.prefix(300), as: UTF8.self).debugDescription
    switch ClientMessageParser.parse(bytes, games: .standard) {
    case .failure(let error, let id):
        require([.badRequest, .unknownType].contains(error.code), "\(what): refused with \(error.code)")
        checkID(id, what)
        roundTrips(ServerMessage.error(error, id: id).encoded, what)
    case .request(let request):
        checkID(request.id, what)
        if let id = request.id { roundTrips(ServerMessage.ack(id: id, seq: 1).encoded, what) }
        switch request.command {
        case .gesture(let type, let message):
            for kind in GameCatalog.standard.kinds.map { GameKind($0) } { gesture(type: type, message: message, kind: kind, what) }
        case .create(let kind, let options):
            create(kind: kind, options: options, what)
        case .join(let game, _, let since, _), .watch(let game, let since, _, _):
            require(!game.isEmpty && (since ?? 0) >= 0, "\(what): join or watch of \(game) since \(since ?? -1)")
        case .leave, .list, .show, .hint:
            break
        case .say(let text, _):
            roundTrips(ServerMessage.chat(game: "g", room: .spectators, by: "s1", text: text, at: 0, number: 1).encoded, what)
        case .mute(let who):
            require(!who.isEmpty, "\(what): mute of nobody")
        case .auth(let jwt):
            // Any bytes as a token: refused with a reason, never a crash.
            if case .success = fuzzVerifier.verify(jwt, now: 0) { require(false, "\(what): a fuzzed token verified") }
        }
    }
    return 0
}

/// An id is echoed in replies: a string of at most 64 characters, or an integer.
func checkID(_ id: JSON?, _ what: @autoclosure () -> String) {
    switch id {
    case nil, .int?: break
    case .string(let s)?: require(s.count <= ClientMessageParser.maxIDLength, "\(what()): id of \(s.count) characters")
    case let other?: require(false, "\(what()): id \(other.encoded)")
    }
}

/// Text the server sends is JSON that reads back as itself.
func roundTrips(_ text: String, _ what: @autoclosure () -> String) {
    do {
        let value = try JSONText.parse(text)
        require(value.encoded == text, "\(what()): \(text) re-encodes as \(value.encoded)")
    } catch {
        require(false, "\(what()): the server would send \(text), which is not JSON: \(error)")
    }
}

func gesture(type: String, message: JSON, kind: GameKind, _ what: @autoclosure () -> String) {
    let parsed: ParsedGesture
    do {
        parsed = try GameCatalog.standard.parse(type: type, message: message, kind: kind)
    } catch {
        require([.badRequest, .unknownType].contains(error.code), "\(what()): \(kind) refused with \(error.code)")
        return
    }
    require(parsed.cause["type"] == .string(type), "\(what()): the cause of \(type) is \(parsed.cause.encoded)")
    roundTrips(parsed.cause.encoded, what())
    roundTrips(parsed.stored.encoded, what())
    do {
        // What storage keeps reads back as the same command (a game is rebuilt from it).
        let again = try GameCatalog.standard.parse(type: type, message: JSONText.parse(parsed.stored.encoded), kind: kind)
        require(again.command == parsed.command, "\(what()): \(parsed.stored.encoded) reads back as another command")
        // The cause, which drops secrets (a seed, a deck), reads back too.
        _ = try GameCatalog.standard.parse(type: type, message: parsed.cause, kind: kind)
    } catch {
        require(false, "\(what()): the stored form or cause of a \(kind) \(type) does not read back: \(error)")
    }
}

func create(kind: GameKind, options: JSON, _ what: @autoclosure () -> String) {
    var random = SplitMix64(seed: 42)
    let game: AnyGame
    let stored: JSON
    do {
        (game, stored) = try GameCatalog.standard.create(kind: kind, options: options, time: 0, random: &random)
    } catch {
        require(error.code == .badRequest, "\(what()): create refused with \(error.code)")
        return
    }
    let text = stored.encoded
    roundTrips(text, what())
    do {
        let restored = try GameCatalog.standard.restore(kind: kind, options: JSONText.parse(text), time: 0)
        require(restored.publicState() == game.publicState(), "\(what()): the game stored as \(text) restores otherwise")
    } catch {
        require(false, "\(what()): a created game's stored options \(text) do not restore: \(error)")
    }
    _ = game.publicState().encoded
}
