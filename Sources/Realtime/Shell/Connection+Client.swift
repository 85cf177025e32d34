extension Connection {
    /// The client address the shell decided at the upgrade: the peer's, or, behind a trusted
    /// proxy, the one it forwarded for (`.unknown` for a connection of another cluster node and
    /// in tests). What per-address limits such as `--create-rate` count by (`limitKey`).
    public var clientAddress: ClientAddress { io.client }
}
