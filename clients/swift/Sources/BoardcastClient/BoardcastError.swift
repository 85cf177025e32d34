/// An error reply of the server, or one of the library's own refusals.
///
/// `code` is the protocol's (PROTOCOL section 8: `bad-request`, `unknown-type`, `not-found`,
/// `not-joined`, `forbidden`, `illegal-move`, `unavailable`, `limited`, `rate-limited`), or one of
/// the library's: `disconnected` (the connection dropped before a request that must not be sent
/// twice was answered), `closed` (the session or client was closed), `stale` (a command chosen
/// from a state older than the newest the server has shown).
public struct BoardcastError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String
    /// The server's `error` message itself, when there was one.
    public let reply: JSONValue?

    public init(code: String, message: String, reply: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.reply = reply
    }

    /// The error of an `{"type":"error","code","message"}` reply.
    public init(reply: JSONValue) {
        let code = reply["code"]?.stringValue ?? "error"
        self.init(code: code, message: reply["message"]?.stringValue ?? code, reply: reply)
    }

    public var description: String { "\(code): \(message)" }

    public static func closed(_ why: String = "the session is closed") -> BoardcastError {
        BoardcastError(code: "closed", message: why)
    }
}
