import CHiredis
import Foundation

/// What the Redis link reports. Every call comes on the service thread (hiredis runs on
/// the same libev loop as lws).
protocol RedisEvents: AnyObject {
    func redisLinkUp()
    func redisLinkDown(_ why: String)
    func redisMessage(channel: String, payload: [UInt8])
    func redisSubscribed(channel: String)
}

/// A Redis reply, copied out of hiredis's memory.
enum RedisReply: Equatable, Sendable {
    case string([UInt8])
    case integer(Int)
    case array([RedisReply])
    case null
    case status(String)
    case error(String)

    var text: String? {
        switch self {
        case .string(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .status(let text): return text
        default: return nil
        }
    }
}

/// The one owner of hiredis, like `LWSContext` for lws: two async connections on the
/// server's libev loop (one for commands and publishing, one subscribed, since a
/// subscribed connection takes nothing else), their C callbacks, and reconnection with
/// backoff. hiredis 0.14 does not reconnect: when Redis goes away every pending callback
/// gets a null reply, then the connection is freed, and this makes new ones.
///
/// Unsafe pointers live here only: the contexts, the callbacks' `privdata`, reply memory.
final class RedisLink {
    let host: String
    let port: Int
    let database: Int
    weak var events: (any RedisEvents)?

    private let loop: UnsafeMutableRawPointer
    private var commands: UnsafeMutablePointer<redisAsyncContext>?
    private var subscriber: UnsafeMutablePointer<redisAsyncContext>?
    private var commandsReady = false
    private var subscriberReady = false
    private(set) var isUp = false
    private var channels: Set<String> = []
    private var nextAttempt = 0.0
    private var backoff = 0.1
    private var closing = false

    init(host: String, port: Int, database: Int, loop: UnsafeMutableRawPointer) {
        self.host = host
        self.port = port
        self.database = database
        self.loop = loop
    }

    deinit { close() }

    // MARK: Connecting

    /// Connects if it is not connected and the backoff allows; call on every tick.
    func tick(now: Double) {
        guard !closing, commands == nil || subscriber == nil, now >= nextAttempt else { return }
        nextAttempt = now + backoff
        backoff = min(backoff * 2, 2)
        if commands == nil { commands = open() }
        if subscriber == nil { subscriber = open() }
    }

    private func open() -> UnsafeMutablePointer<redisAsyncContext>? {
        guard let context = redisAsyncConnect(host, Int32(port)) else { return nil }
        if context.pointee.err != 0 {
            redisAsyncFree(context)
            return nil
        }
        context.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        guard boardcast_redis_attach(loop, context) == REDIS_OK else {
            redisAsyncFree(context)
            return nil
        }
        redisAsyncSetConnectCallback(context, redisConnected)
        redisAsyncSetDisconnectCallback(context, redisDisconnected)
        return context
    }

    fileprivate func connected(_ context: UnsafePointer<redisAsyncContext>, status: Int32) {
        guard status == REDIS_OK else {
            // hiredis frees a context whose connection failed, after this callback.
            forget(context, why: "cannot connect to redis://\(host):\(port)")
            return
        }
        if database != 0 {
            send(on: UnsafeMutablePointer(mutating: context), ["SELECT", String(database)].map { Array($0.utf8) }, reply: nil)
        }
        if context == UnsafePointer(commands) {
            commandsReady = true
        } else if context == UnsafePointer(subscriber) {
            subscriberReady = true
            for channel in channels { sendSubscribe(channel) }
        }
        if commandsReady && subscriberReady && !isUp {
            isUp = true
            backoff = 0.1
            events?.redisLinkUp()
        }
    }

    fileprivate func disconnected(_ context: UnsafePointer<redisAsyncContext>, status: Int32) {
        forget(context, why: "the connection to redis://\(host):\(port) was lost")
    }

    /// Drops a context hiredis is about to free; when the link was up, says it went down.
    private func forget(_ context: UnsafePointer<redisAsyncContext>, why: String) {
        if context == UnsafePointer(commands) {
            commands = nil
            commandsReady = false
        } else if context == UnsafePointer(subscriber) {
            subscriber = nil
            subscriberReady = false
        }
        if isUp {
            isUp = false
            if !closing { events?.redisLinkDown(why) }
        }
        // The other connection goes too, so both come back together, subscriptions renewed.
        // A connected one gets its disconnect callback (which forgets it); one still connecting
        // gets none from hiredis, so it is freed and forgotten here.
        guard !closing else { return }
        if let commands {
            if commandsReady {
                redisAsyncDisconnect(commands)
            } else {
                self.commands = nil
                redisAsyncFree(commands)
            }
        }
        if let subscriber {
            if subscriberReady {
                redisAsyncDisconnect(subscriber)
            } else {
                self.subscriber = nil
                redisAsyncFree(subscriber)
            }
        }
    }

    func close() {
        guard !closing else { return }
        closing = true
        if let commands { redisAsyncFree(commands) }
        if let subscriber { redisAsyncFree(subscriber) }
        commands = nil
        subscriber = nil
        isUp = false
    }

    // MARK: Commands

    /// Sends a command on the command connection. `reply` gets nil when the link is down or
    /// drops before the answer; it is called on the service thread.
    func command(_ arguments: [[UInt8]], reply: ((RedisReply?) -> Void)? = nil) {
        guard isUp, let commands else {
            reply?(nil)
            return
        }
        send(on: commands, arguments, reply: reply)
    }

    func command(_ arguments: String..., reply: ((RedisReply?) -> Void)? = nil) {
        command(arguments.map { Array($0.utf8) }, reply: reply)
    }

    private func send(on context: UnsafeMutablePointer<redisAsyncContext>, _ arguments: [[UInt8]],
                      reply: ((RedisReply?) -> Void)?) {
        let box = reply.map { Unmanaged.passRetained(ReplyBox($0)).toOpaque() }
        let status = Self.withArgv(arguments) { argc, argv, lengths in
            redisAsyncCommandArgv(context, box == nil ? nil : redisReplied, box, argc, argv, lengths)
        }
        if status != REDIS_OK, let box {
            Unmanaged<ReplyBox>.fromOpaque(box).takeRetainedValue().body(nil)
        }
    }

    // MARK: Subscriptions

    /// Subscribes (now, or when the link is back); `redisSubscribed` says when Redis has it.
    func subscribe(_ channel: String) {
        guard channels.insert(channel).inserted else {
            if isUp { events?.redisSubscribed(channel: channel) }
            return
        }
        if subscriberReady { sendSubscribe(channel) }
    }

    func unsubscribe(_ channel: String) {
        guard channels.remove(channel) != nil, subscriberReady, let subscriber else { return }
        send(on: subscriber, ["UNSUBSCRIBE", channel].map { Array($0.utf8) }, reply: nil)
    }

    private func sendSubscribe(_ channel: String) {
        guard let subscriber else { return }
        // The callback stays registered for the channel: it gets every message on it.
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = Self.withArgv([Array("SUBSCRIBE".utf8), Array(channel.utf8)]) { argc, argv, lengths in
            redisAsyncCommandArgv(subscriber, redisPushed, me, argc, argv, lengths)
        }
    }

    fileprivate func pushed(_ reply: RedisReply) {
        guard case .array(let parts) = reply, parts.count >= 3, let kind = parts[0].text, let channel = parts[1].text else {
            return
        }
        switch kind {
        case "message":
            if case .string(let payload) = parts[2] { events?.redisMessage(channel: channel, payload: payload) }
        case "subscribe":
            if channels.contains(channel) { events?.redisSubscribed(channel: channel) }
        default:
            break
        }
    }

    // MARK: Before serving

    /// Runs commands on a short-lived blocking connection (start-up only: the node's code).
    static func blocking(host: String, port: Int, database: Int, _ commands: [[String]]) throws -> [RedisReply] {
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        guard let context = redisConnectWithTimeout(host, Int32(port), timeout), context.pointee.err == 0 else {
            throw RedisLinkError.unreachable("cannot connect to redis://\(host):\(port)")
        }
        defer { redisFree(context) }
        _ = redisSetTimeout(context, timeout)
        timeout = timeval(tv_sec: 3, tv_usec: 0)
        var replies: [RedisReply] = []
        let all = (database == 0 ? [] : [["SELECT", String(database)]]) + commands
        for command in all {
            let arguments = command.map { Array($0.utf8) }
            let raw = withArgv(arguments) { argc, argv, lengths in redisCommandArgv(context, argc, argv, lengths) }
            guard let raw else { throw RedisLinkError.unreachable("redis://\(host):\(port) did not answer") }
            let reply = RedisLink.copy(raw.assumingMemoryBound(to: redisReply.self))
            freeReplyObject(raw)
            if case .error(let why) = reply { throw RedisLinkError.refused(why) }
            replies.append(reply)
        }
        return database == 0 ? replies : Array(replies.dropFirst())
    }

    // MARK: C glue

    private static func withArgv<T>(_ arguments: [[UInt8]],
                             _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> T) -> T {
        let buffers = arguments.map { bytes -> UnsafeMutablePointer<CChar> in
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
            bytes.withUnsafeBufferPointer { source in
                source.withMemoryRebound(to: CChar.self) { if let base = $0.baseAddress { buffer.update(from: base, count: bytes.count) } }
            }
            return buffer
        }
        defer { buffers.forEach { $0.deallocate() } }
        var argv: [UnsafePointer<CChar>?] = buffers.map { UnsafePointer($0) }
        let lengths = arguments.map(\.count)
        return argv.withUnsafeMutableBufferPointer { argvBuffer in
            lengths.withUnsafeBufferPointer { body(Int32(arguments.count), argvBuffer.baseAddress!, $0.baseAddress!) }
        }
    }

    static func copy(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            return .string(value.str.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(value.len))) } ?? [])
        case REDIS_REPLY_INTEGER:
            return .integer(Int(value.integer))
        case REDIS_REPLY_ARRAY:
            return .array((0..<Int(value.elements)).map { copy(boardcast_redis_element(reply, $0)) })
        case REDIS_REPLY_STATUS:
            return .status(value.str.map { String(cString: $0) } ?? "")
        case REDIS_REPLY_ERROR:
            return .error(value.str.map { String(cString: $0) } ?? "error")
        default:
            return .null
        }
    }
}

enum RedisLinkError: Error, CustomStringConvertible {
    case unreachable(String)
    case refused(String)

    var description: String {
        switch self {
        case .unreachable(let why), .refused(let why): return why
        }
    }
}

/// A reply callback kept alive through hiredis's `privdata` until its answer comes.
private final class ReplyBox {
    let body: (RedisReply?) -> Void
    init(_ body: @escaping (RedisReply?) -> Void) { self.body = body }
}

private func owner(_ context: UnsafePointer<redisAsyncContext>?) -> RedisLink? {
    guard let data = context?.pointee.data else { return nil }
    return Unmanaged<RedisLink>.fromOpaque(data).takeUnretainedValue()
}

private func redisConnected(_ context: UnsafePointer<redisAsyncContext>?, _ status: Int32) {
    guard let context else { return }
    owner(context)?.connected(context, status: status)
}

private func redisDisconnected(_ context: UnsafePointer<redisAsyncContext>?, _ status: Int32) {
    guard let context else { return }
    owner(context)?.disconnected(context, status: status)
}

private func redisReplied(_ context: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?,
                          _ privdata: UnsafeMutableRawPointer?) {
    guard let privdata else { return }
    let box = Unmanaged<ReplyBox>.fromOpaque(privdata).takeRetainedValue()
    box.body(reply.map { RedisLink.copy($0.assumingMemoryBound(to: redisReply.self)) })
}

private func redisPushed(_ context: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?,
                         _ privdata: UnsafeMutableRawPointer?) {
    guard let privdata, let reply else { return }
    let link = Unmanaged<RedisLink>.fromOpaque(privdata).takeUnretainedValue()
    link.pushed(RedisLink.copy(reply.assumingMemoryBound(to: redisReply.self)))
}
