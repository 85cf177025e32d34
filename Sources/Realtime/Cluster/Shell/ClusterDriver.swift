import Foundation

/// Where a cluster node's Redis is.
public struct RedisAddress: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var database: Int

    /// Reads `redis://HOST:PORT[/DB]`.
    public static func parse(_ url: String) throws -> RedisAddress {
        guard url.hasPrefix("redis://") else { throw RedisLinkError.refused("--redis takes redis://HOST:PORT[/DB], not \(url)") }
        let rest = url.dropFirst("redis://".count)
        let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let hostPort = parts[0].split(separator: ":")
        guard let host = hostPort.first, !host.isEmpty else { throw RedisLinkError.refused("--redis needs a host: \(url)") }
        let port = hostPort.count > 1 ? Int(hostPort[1]) : 6379
        let database = parts.count > 1 && !parts[1].isEmpty ? Int(parts[1]) : 0
        guard let port, let database, (1...65535).contains(port), database >= 0 else {
            throw RedisLinkError.refused("--redis takes redis://HOST:PORT[/DB], not \(url)")
        }
        return RedisAddress(host: String(host), port: port, database: database)
    }
}

/// The cluster's shell: carries out `ClusterAction`s on Redis (through `RedisLink`, on the
/// service thread's loop), runs the lease and the look at the other nodes, and hands what
/// Redis says back as `ClusterEvent`s. The keys and Lua scripts are `RedisProtocol.swift`'s; the
/// hiredis side (C callbacks, reply memory) is `RedisLink`'s.
final class ClusterDriver {
    private let identity: ClusterIdentity
    private let address: RedisAddress
    private let link: RedisLink
    private let deliver: (ClusterEvent) -> Void
    /// A random id of this process: its liveness key holds it, so a second process with
    /// the same node name is noticed (fencing).
    private let incarnation = String(UInt64.random(in: 1...UInt64.max), radix: 36)
    private var claimedAlive = false

    init(identity: ClusterIdentity, address: RedisAddress, loop: UnsafeMutableRawPointer,
         deliver: @escaping (ClusterEvent) -> Void) {
        self.identity = identity
        self.address = address
        self.deliver = deliver
        link = RedisLink(host: address.host, port: address.port, database: address.database, loop: loop)
        link.events = self
        link.subscribe(ClusterKeys.nodeChannel(identity.node))
    }

    var isUp: Bool { link.isUp }

    /// Reconnects when it may; call on every tick.
    func tick(now: Double) { link.tick(now: now) }

    func close() { link.close() }

    /// An order the hub carried among its actions (`HubAction.link`).
    func carryOut(_ order: LinkOrder) {
        guard let action = order.order(as: ClusterAction.self) else { return }
        switch action {
        case .send(let node, let envelope):
            link.command([Array("PUBLISH".utf8), Array(ClusterKeys.nodeChannel(node).utf8), envelope.bytes])
        case .publish(let game, let publication):
            if publication.isDiff {
                link.command([Array("EVAL".utf8), Array(RedisScripts.publishDiff.utf8), Array("2".utf8),
                              Array(ClusterKeys.gameStream(game).utf8), Array(ClusterKeys.gameChannel(game).utf8),
                              Array("256".utf8), publication.bytes, Array("3600000".utf8)])
            } else {
                link.command([Array("PUBLISH".utf8), Array(ClusterKeys.gameChannel(game).utf8), publication.bytes])
            }
        case .subscribe(let game):
            link.subscribe(ClusterKeys.gameChannel(game))
        case .unsubscribe(let game):
            link.unsubscribe(ClusterKeys.gameChannel(game))
        case .lookupCode(let code):
            link.command("HGET", ClusterKeys.codes, code) { [weak self] reply in
                self?.deliver(.codeFound(code: code, node: reply?.text, linkFailed: reply == nil))
            }
        case .readStream(let game):
            link.command("XRANGE", ClusterKeys.gameStream(game), "-", "+") { [weak self] reply in
                var publications: [Publication]?
                if case .array(let entries)? = reply {
                    publications = entries.compactMap { entry in
                        guard case .array(let parts) = entry, parts.count == 2, case .array(let fields) = parts[1],
                              fields.count == 2, case .string(let bytes) = fields[1] else { return nil }
                        return Publication.parse(bytes)
                    }
                }
                self?.deliver(.streamRead(game: game, publications))
            }
        case .round(let lobby):
            round(lobby: lobby)
        }
    }

    /// Renews the lease, shares this node's lobby, and reads the cluster's codes, live nodes and lobbies.
    private func round(lobby: [LobbyEntry]) {
        guard link.isUp else { return }
        let lease = String(Int(identity.leaseSeconds * 1000))
        let aliveKey = ClusterKeys.alive(identity.node)
        if claimedAlive {
            link.command("EVAL", RedisScripts.renew, "1", aliveKey, incarnation, lease) { [weak self] reply in
                if reply == .integer(0) { self?.deliver(.fenced) }
                if reply == .integer(2) { self?.deliver(.leaseLapsed) }
            }
        } else {
            // A new process takes the name over: an older one still running finds its lease gone and stops.
            claimedAlive = true
            link.command("SET", aliveKey, incarnation, "PX", lease)
            // Where ids name their owner, others find this node by its code.
            if !identity.code.isEmpty { link.command("HSET", ClusterKeys.codes, identity.code, identity.node) }
        }
        link.command("SET", ClusterKeys.lobby(identity.node), LobbyEntry.array(lobby), "PX",
                     String(Int(max(3, identity.leaseSeconds) * 1000)))
        let nowMilliseconds = String(Int64(Date().timeIntervalSince1970 * 1000))
        link.command("EVAL", RedisScripts.view, "0", nowMilliseconds, identity.node) { [weak self] reply in
            // No answer is not "every node is dead": the link dropped; the next round asks again.
            guard let self, case .array(let parts)? = reply, parts.count == 4,
                  case .array(let nodeList) = parts[0] else { return }
            let nodes = nodeList.compactMap(\.text)
            var alive: [String: String] = [:]
            var lobbies: [String: [LobbyEntry]] = [:]
            var codes: [String: String] = [:]
            if case .array(let values) = parts[1] {
                for (node, value) in zip(nodes, values) { if let text = value.text { alive[node] = text } }
            }
            if case .array(let values) = parts[2] {
                for (node, value) in zip(nodes, values) {
                    if case .string(let bytes) = value, let entries = try? JSONText.parse(bytes).arrayValue {
                        lobbies[node] = entries.compactMap(LobbyEntry.init(json:))
                    }
                }
            }
            if case .array(let flat) = parts[3] {
                for pair in stride(from: 0, to: flat.count - 1, by: 2) {
                    if let code = flat[pair].text, let node = flat[pair + 1].text { codes[code] = node }
                }
            }
            self.deliver(.view(codes: codes, alive: alive, lobbies: lobbies))
        }
    }

    /// The two characters that start this node's game ids: kept in its data directory, and
    /// claimed in Redis the first time (another node's code is never taken).
    static func claimNodeCode(node: String, store: any GameStore, redis: RedisAddress) throws -> String {
        if let code = try store.meta("node_code") {
            _ = try? RedisLink.blocking(host: redis.host, port: redis.port, database: redis.database,
                                        [["HSET", ClusterKeys.codes, code, node]])
            return code
        }
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        for _ in 0..<200 {
            let code = String((0..<2).map { _ in alphabet.randomElement()! })
            let replies = try RedisLink.blocking(host: redis.host, port: redis.port, database: redis.database,
                                                 [["HSETNX", ClusterKeys.codes, code, node]])
            if replies.first == .integer(1) {
                try store.setMeta("node_code", code)
                return code
            }
        }
        throw RedisLinkError.refused("no free node code left in \(ClusterKeys.codes)")
    }
}

extension ClusterDriver: RedisEvents {
    func redisLinkUp() {
        claimedAlive = false
        deliver(.link(up: true))
    }

    func redisLinkDown(_ why: String) { deliver(.link(up: false)) }

    func redisMessage(channel: String, payload: [UInt8]) {
        if channel.hasPrefix(ClusterKeys.gamePrefix) {
            deliver(.gameMessage(game: String(channel.dropFirst(ClusterKeys.gamePrefix.count)), payload))
        } else {
            deliver(.nodeMessage(payload))
        }
    }

    func redisSubscribed(channel: String) {
        guard channel.hasPrefix(ClusterKeys.gamePrefix) else { return }
        deliver(.subscribed(game: String(channel.dropFirst(ClusterKeys.gamePrefix.count))))
    }
}
