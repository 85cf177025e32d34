import Core

/// Who sent a request and under which id, so that its answer finds them; and when its frame
/// arrived, which the fan-out's latency figures start from (nil for a create, which no figure times).
struct CommandOrigin {
    var connection: ConnectionID
    var requestID: JSON?
    var arrival: Instant? = nil
}
