/// One WebSocket connection as the shell holds it: its number (the hub knows it by that
/// alone) and its I/O state, which holds the client address decided at the upgrade
/// (`clientAddress`). Confined to the service thread.
final class Connection {
    let id: ConnectionID
    /// What is left to send, the message being received, pings.
    var io = ConnectionIO()

    init(id: ConnectionID) {
        self.id = id
    }
}
