import Core
@testable import Realtime

/// One node's cluster machine on a store shared by the nodes, driven by hand: its link up and
/// its view of the nodes settled, so a missing key means a dead node.
struct SettledMachine {
    let machine: ClusterMachine
    let sessions = SessionTable()
    var now = Instant(monotonic: 100, unixTime: 1_700_000_000)

    init(node: String, alive: [String: String]) {
        machine = ClusterMachine(identity: ClusterIdentity(node: node, code: "", leaseSeconds: 3),
                                 sessions: sessions, sharesStore: true)
        var effects = Effects()
        _ = machine.receive(.link(up: true), now: now, into: &effects)
        _ = machine.receive(.view(codes: [:], alive: alive, lobbies: [:]), now: now, into: &effects)
        now += NodeDirectory.settling
        _ = machine.receive(.view(codes: [:], alive: alive, lobbies: [:]), now: now, into: &effects)
    }

    /// A client's message as the hub would pass it on.
    static func request(_ message: JSON) -> ClientRequest? {
        if case .request(let request) = ClientMessageParser.parse(message: message, games: .noGameCommands) { request } else { nil }
    }
}
