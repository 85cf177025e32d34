/// One WebSocket connection as the shell holds it: its number (the hub knows it by that
/// alone), where it comes from, and its I/O state. Confined to the service thread.
final class Connection {
    let id: ConnectionID
    let address: ClientAddress
    /// What is left to send, the message being received, pings.
    var io = ConnectionIO()

    init(id: ConnectionID, address: ClientAddress) {
        self.id = id
        self.address = address
    }
}
